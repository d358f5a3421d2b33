import Foundation

/// One line on a terminal's standard error: sessions done of the total,
/// those replayed from the cache, the rate and the time left.
final class EvaluationProgress {
  private let total: Int
  private let enabled: Bool
  private var done = 0
  private var startedAt = Date()
  private var resumed = 0
  private var lastDrawn = Date.distantPast

  init(total: Int, enabled: Bool) {
    self.total = total
    self.enabled = enabled && isatty(STDERR_FILENO) == 1 && total > 0
  }

  func start(done: Int) {
    self.done = done
    resumed = done
    startedAt = Date()
    draw(cached: 0, force: true)
  }

  func advance(cached: Int) {
    done += 1
    draw(cached: cached, force: done == total)
  }

  func finish() {
    guard enabled else { return }
    FileHandle.standardError.write(Data("\n".utf8))
  }

  private func draw(cached: Int, force: Bool) {
    guard enabled else { return }
    let now = Date()
    // A redraw a tenth of a second at most: a cached corpus runs thousands of sessions a second.
    guard force || now.timeIntervalSince(lastDrawn) >= 0.1 else { return }
    lastDrawn = now
    let width = 30
    let filled = done * width / max(total, 1)
    let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
    let elapsed = now.timeIntervalSince(startedAt)
    let ranNow = done - resumed
    let rate = elapsed > 0 ? Double(ranNow) / elapsed : 0
    let left = rate > 0 ? Double(total - done) / rate : nil
    var line = "\r\u{1B}[2K\(bar) \(done)/\(total) sessions  \(cached) from cache"
    if ranNow > 0 { line += String(format: "  %.1f/s", rate) }
    if let left, done < total { line += "  \(Self.duration(left)) left" }
    FileHandle.standardError.write(Data(line.utf8))
  }

  static func duration(_ seconds: Double) -> String {
    let whole = Int(seconds.rounded(.up))
    if whole < 60 { return "\(whole)s" }
    if whole < 3600 { return "\(whole / 60)m\(String(format: "%02d", whole % 60))s" }
    return "\(whole / 3600)h\(String(format: "%02d", whole / 60 % 60))m"
  }
}
