import FaceEstimation
import FaceRecognition
import Foundation
import Imaging
import TestSupport
import Testing

enum RecognitionInstall {
  static let models = FaceRecognitionModels.resolve(home: packageRoot())
  static let face = FaceEstimators.options(home: packageRoot())
  static let requirement = FaceBackendRequirement(
    "face recognition (dlib's models and MediaPipe)",
    files: [models.recognitionModel, models.shapeModel, face.backend.libraryPath, face.backend.modelPath])
  static func frame(_ name: String) -> String { packageRoot() + "/Tests/Fixtures/frames/" + name }
}

@Suite(.requires(RecognitionInstall.requirement), .serialized)
struct StillFacesTests {
  static func reader(_ alignment: FaceAlignment = .mesh) throws -> StillFaces {
    try StillFaces(
      face: RecognitionInstall.face, recognizer: FaceRecognizer(models: RecognitionInstall.models),
      alignment: alignment)
  }

  /// Three photos of one man and one of another: the same person is within
  /// dlib's 0.6 and the other man is well beyond it, with either alignment.
  @Test(arguments: FaceAlignment.allCases)
  func samePersonIsCloseAndAnotherIsFar(alignment: FaceAlignment) throws {
    let reader = try Self.reader(alignment)
    let obama = try reader.describeSingleFace(at: RecognitionInstall.frame("obama-480.jpg")).descriptor
    let obama2 = try reader.describeSingleFace(at: RecognitionInstall.frame("../people/obama2-480.jpg")).descriptor
    let obama3 = try reader.describeSingleFace(at: RecognitionInstall.frame("../people/obama3-480.jpg")).descriptor
    let biden = try reader.describeSingleFace(at: RecognitionInstall.frame("biden-480.jpg")).descriptor
    for (a, b) in [(obama, obama2), (obama, obama3), (obama2, obama3)] {
      #expect(a.distance(to: b) < 0.5)
    }
    for other in [obama, obama2, obama3] {
      #expect(other.distance(to: biden) > 0.7)
    }
  }

  @Test func describesTheSameFaceTheSameWayTwice() throws {
    let reader = try Self.reader()
    let chip = ImageBuffer(format: .rgb8)
    let first = try reader.describeSingleFace(at: RecognitionInstall.frame("0001.jpg"), chip: chip)
    let second = try reader.describeSingleFace(at: RecognitionInstall.frame("0001.jpg"))
    #expect(first.descriptor == second.descriptor)
    #expect(chip.width == 150 && chip.height == 150)
    // The blink video's man, a second later with his eyes closed, is still himself.
    let closed = try reader.describeSingleFace(at: RecognitionInstall.frame("0027.jpg"))
    #expect(first.descriptor.distance(to: closed.descriptor) < 0.4)
  }

  /// Five people, the smallest 80 px: the tiled search finds them all.
  @Test func aGroupPhotoIsSeveralFaces() throws {
    let reader = try Self.reader()
    let image = try reader.read(RecognitionInstall.frame("../faces/multi_face.jpg"))
    #expect(try reader.faces(in: image).count == 5)
    #expect {
      try reader.describeSingleFace(at: RecognitionInstall.frame("../faces/multi_face.jpg"))
    } throws: { ($0 as? FaceRecognitionError)?.kind == .severalFaces }
  }

  @Test func aPhotoWithoutAFaceIsNoFace() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let gray = ImageBuffer(width: 320, height: 240, format: .rgb8)
    for index in 0..<gray.byteCount { gray.pixels[index] = UInt8(index % 7 * 20) }
    let path = folder.file("wall.jpg")
    try Data(JPEGEncoder().encode(gray, quality: 90)).write(to: URL(fileURLWithPath: path))
    #expect {
      try Self.reader().describeSingleFace(at: path)
    } throws: { ($0 as? FaceRecognitionError)?.kind == .noFace && ($0 as? FaceRecognitionError)?.file == path }
  }

  @Test func missingAndUnreadableImagesNameTheFile() throws {
    let folder = try TemporaryFolder()
    defer { folder.remove() }
    let reader = try Self.reader()
    let missing = folder.file("missing.jpg")
    #expect {
      try reader.describeSingleFace(at: missing)
    } throws: {
      let error = $0 as? FaceRecognitionError
      return error?.kind == .unreadableImage && error?.file == missing
        && error?.message == "there is no image at this path"
    }
    let text = try folder.write("notes.jpg", "not a photo")
    #expect {
      try reader.describeSingleFace(at: text)
    } throws: { ($0 as? FaceRecognitionError)?.kind == .unreadableImage }
  }

  @Test func aMissingModelNamesTheInstallCommand() {
    let models = FaceRecognitionModels(recognitionModel: "/nonexistent/model.dat", shapeModel: "/nonexistent/shape.dat")
    #expect {
      try FaceRecognizer(models: models)
    } throws: {
      let error = $0 as? FaceRecognitionError
      return error?.kind == .modelUnavailable && error?.help?.contains("scripts/install-face-backend") == true
    }
  }
}

/// OpenBLAS starts a thread per core: a recognizer pins it to the threads
/// the setting face.blas_threads gives (1 by default), and 0 leaves it be.
@Suite(.requires(RecognitionInstall.requirement), .serialized)
struct BLASThreadsTests {
  @Test func aRecognizerPinsOpenBLASToTheThreadsItIsGiven() throws {
    try #require(FaceRecognizer.blasThreads != nil, "dlib's BLAS is OpenBLAS (scripts/install-deps)")
    _ = try FaceRecognizer(models: RecognitionInstall.models, blasThreads: 2)
    #expect(FaceRecognizer.blasThreads == 2)
    _ = try FaceRecognizer(models: RecognitionInstall.models)
    #expect(FaceRecognizer.blasThreads == 1)
    _ = try FaceRecognizer(models: RecognitionInstall.models, blasThreads: 0)
    #expect(FaceRecognizer.blasThreads == 1, "0 leaves OpenBLAS as it was")
  }
}
