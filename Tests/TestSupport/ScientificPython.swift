import Foundation

/// Python 3 with SciPy and NumPy, the reference these statistics are held
/// against: asked at test time, never copied into the tests, so that a value
/// cannot be right only because it was pasted from our own output.
public enum ScientificPython {
  public static let skipReason =
    "needs python3 with SciPy and NumPy (scripts/install-test-deps); with CI=true these tests run and fail instead"

  /// Whether python3 can import SciPy's distributions and NumPy.
  public static let available: Bool = {
    guard Browser.python != nil else { return false }
    return (try? numbers("import numpy, scipy.stats", input: [])) != nil
  }()

  /// Whether a suite that needs it runs: when it is here, and on CI, where its absence is a failure.
  public static var runs: Bool { available || ContinuousIntegration.isRunning }

  public struct Failure: Error, CustomStringConvertible {
    public var description: String
  }

  /// Runs `script` with `numbers`, a list of the input numbers, and `emit(value)`,
  /// which prints a number exactly (repr); returns what it emitted, in order.
  public static func numbers(_ script: String, input: [Double]) throws -> [Double] {
    guard let python = Browser.python else {
      throw Failure(description: "python3 is not installed: run scripts/install-test-deps")
    }
    let folder = try TemporaryFolder(prefix: "scientific-python")
    defer { folder.remove() }
    // Exact in both directions: Swift's description and Python's repr both print the shortest round trip.
    let inputFile = try folder.write("input.txt", input.map { "\($0)" }.joined(separator: "\n"))
    let prelude = """
      import sys
      numbers = [float(line) for line in open(sys.argv[1]) if line.strip()]
      def emit(value):
          print(repr(float(value)))

      """
    let run = try Browser.run(python, ["-c", prelude + script, inputFile], folder: folder)
    guard run.status == 0 else {
      throw Failure(description: "python3 failed (\(run.status)): \(run.stderr)")
    }
    return try run.stdout.split(separator: "\n").map { line in
      guard let value = Double(line) else { throw Failure(description: "python3 printed \(line)") }
      return value
    }
  }
}
