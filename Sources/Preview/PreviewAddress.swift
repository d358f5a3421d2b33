import Diagnostics
import HTTPServing

/// Where the preview listens: `ADDR:PORT`, `:PORT` or `PORT` (port 0 picks a
/// free one). Loopback unless said otherwise.
public typealias PreviewAddress = HTTPServerAddress

extension HTTPServerAddress {
  /// The address of `--preview ADDR:PORT`.
  public static func parse(_ text: String) throws(WorkbenchError) -> PreviewAddress {
    guard let address = PreviewAddress(parsing: text) else {
      throw WorkbenchError(
        .usage, "--preview \(text): not an address and port",
        help: "write --preview ADDR:PORT, e.g. --preview 127.0.0.1:8080, or --preview alone for a free port")
    }
    return address
  }
}
