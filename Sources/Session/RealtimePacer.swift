import Foundation
import Interrupts

/// Sleeps so that frame times line up with the wall clock, in short naps
/// that notice Ctrl-C.
final class RealtimePacer {
  private var origin: (input: Double, wall: Double)?

  func wait(until t: Double) {
    let now = ProcessInfo.processInfo.systemUptime
    guard let origin else {
      self.origin = (t, now)
      return
    }
    var remaining = (t - origin.input) - (now - origin.wall)
    while remaining > 0 && !Interrupts.pending {
      let nap = min(remaining, 0.05)
      usleep(UInt32(nap * 1_000_000))
      remaining -= nap
    }
  }

  /// Starts the clock again at the next frame (after a pause or a restart).
  func reset() { origin = nil }
}
