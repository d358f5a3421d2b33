import FaceRecognition
import JSONCore

/// What both backends agree on: the descriptor model, the checks of an
/// enrollment, the errors' wording.
enum GalleryFormat {
  /// Faces described by another model cannot be compared with these.
  static let descriptorModel = "dlib_face_recognition_resnet_model_v1"

  static func checkEnrollment(_ enrollment: Enrollment) throws(GalleryError) {
    try GalleryNames.check(enrollment.user)
    try checkFaceCount(enrollment.faces.count)
  }

  static func checkFaceCount(_ count: Int) throws(GalleryError) {
    guard count <= GalleryNames.maximumFacesPerEnrollment else {
      throw GalleryError(
        .tooManyFaces, "\(count) faces at once, more than \(GalleryNames.maximumFacesPerEnrollment)",
        help: "add at most \(GalleryNames.maximumFacesPerEnrollment) images at a time")
    }
  }

  static func details(_ text: String) -> JSONObject {
    (try? JSONParser.parse(text))?.objectValue ?? JSONObject()
  }
}

extension GalleryError {
  static func userNotFound(_ id: String) -> GalleryError {
    GalleryError(.userNotFound, "there is no user '\(id)'", help: "'workbench gallery user list' lists the users")
  }

  static func userExists(_ id: String) -> GalleryError {
    GalleryError(
      .userExists, "the user '\(id)' already exists",
      help: "add faces to them with 'workbench gallery face add --user \(id) IMAGE', or choose another id")
  }

  static func groupNotFound(_ id: String) -> GalleryError {
    GalleryError(
      .groupNotFound, "there is no group '\(id)'", help: "create it with 'workbench gallery group create \(id)'")
  }
}
