/// `--preview` takes an address only when one follows: `run flow.lua
/// --preview --input clip.avi` listens on loopback and a free port.
enum PreviewArgument {
  static let alone = "127.0.0.1:0"

  static func normalized(_ arguments: [String]) -> [String] {
    var out: [String] = []
    for (position, argument) in arguments.enumerated() {
      guard argument == "--preview" else {
        out.append(argument)
        continue
      }
      let next = position + 1 < arguments.count ? arguments[position + 1] : nil
      if let next, isAddress(next) {
        out.append(argument)
      } else {
        out.append("--preview=" + alone)
      }
    }
    return out
  }

  /// `ADDR:PORT`, `:PORT` or `PORT`.
  static func isAddress(_ text: String) -> Bool {
    text.wholeMatch(of: /[^\s\/=]*:\d{1,5}|\d{1,5}/) != nil
  }
}
