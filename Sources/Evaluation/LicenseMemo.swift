import Diagnostics
import Foundation
import Synchronization

/// The license check of an evaluation's sessions: a set of features the
/// license allowed is allowed again for a minute without reading the license
/// and checking its signature once more (that was a tenth of a short
/// session's cost). A refusal is never kept: the next session checks again.
final class LicenseMemo: Sendable {
  private let allow: @Sendable ([String]) throws(WorkbenchError) -> Void
  private let allowed = Mutex<[[String]: Date]>([:])
  static let lifetime: TimeInterval = 60

  init(_ check: @escaping @Sendable ([String]) throws(WorkbenchError) -> Void) {
    allow = check
  }

  /// `check`, remembering what it allowed.
  static func remembering(_ check: @escaping @Sendable ([String]) throws(WorkbenchError) -> Void)
    -> @Sendable ([String]) throws(WorkbenchError) -> Void
  {
    let memo = LicenseMemo(check)
    return { (features: [String]) throws(WorkbenchError) -> Void in try memo.check(features) }
  }

  func check(_ features: [String]) throws(WorkbenchError) {
    let now = Date()
    if let since = allowed.withLock({ $0[features] }), now.timeIntervalSince(since) < LicenseMemo.lifetime { return }
    try allow(features)
    allowed.withLock { $0[features] = now }
  }
}
