import Foundation
import Testing

/// Files that scripts/install-face-backend installs and a test needs
/// (MediaPipe's library and face model, dlib's models), for the
/// `.requires(_:)` trait. The backend is large and installed apart from the
/// package, so a machine may lack it: there the test is skipped, and the
/// test summary lists it as skipped with the missing files named. On CI
/// (``ContinuousIntegration``) the test fails instead, so that a run
/// without the backend cannot pass by running none of these tests.
public struct FaceBackendRequirement: Sendable {
  public static let installCommand = "scripts/install-face-backend"

  /// What the files make up, for the message: "the face backend (MediaPipe)".
  public let piece: String
  public let files: [String]

  public init(_ piece: String, files: [String]) {
    self.piece = piece
    self.files = files
  }

  /// The files that are not there; a folder in a file's place counts as missing.
  public var missingFiles: [String] {
    files.filter { file in
      var isFolder: ObjCBool = false
      return !FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) || isFolder.boolValue
    }
  }

  /// What is missing and how to install it; nil when every file is there.
  public var problem: String? {
    let missing = missingFiles
    guard !missing.isEmpty else { return nil }
    let named = missing.map(Self.shown).joined(separator: ", ")
    return "\(piece) is not installed (missing \(named)): run \(Self.installCommand)"
  }

  /// Whether a test that needs the files runs: yes when they are there, no
  /// (skipped) when they are not, and on CI an error, which Swift Testing
  /// records as the test's failure.
  static func allowsRunning(problem: String?) throws -> Bool {
    guard let problem else { return true }
    if ContinuousIntegration.isRunning { throw MissingFaceBackend(problem: problem) }
    return false
  }

  /// A path inside the package relative to it, as the install script names it.
  private static func shown(_ path: String) -> String {
    path.hasPrefix(packageRootPath + "/") ? String(path.dropFirst(packageRootPath.count + 1)) : path
  }
}

/// A CI run's failure for a face backend that is not installed.
struct MissingFaceBackend: Error, CustomStringConvertible {
  let problem: String

  var description: String { problem + " (CI is set: a test that needs it fails rather than being skipped)" }
}

extension Trait where Self == ConditionTrait {
  /// Runs the test or suite only when `requirement`'s files are there;
  /// otherwise it is skipped with a comment that names the missing files,
  /// or, on CI, fails with that message.
  public static func requires(_ requirement: FaceBackendRequirement) -> Self {
    let problem = requirement.problem
    return .enabled(
      if: try FaceBackendRequirement.allowsRunning(problem: problem), problem.map { Comment(rawValue: $0) })
  }
}
