import Foundation

/// Whether the tests run on CI: the CI environment variable is set, and not
/// to "false" or "0" (CI=true on every CI service). There, a test that
/// needs something the machine lacks fails instead of being skipped.
public enum ContinuousIntegration {
  public static var isRunning: Bool {
    guard let ci = ProcessInfo.processInfo.environment["CI"] else { return false }
    return !ci.isEmpty && ci != "false" && ci != "0"
  }
}
