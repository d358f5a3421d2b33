import Settings

/// The settings of a run's gallery (docs/gallery.md).
public enum GallerySettings {
  public static let declarations: [SettingDeclaration] = [
    .string(
      "gallery.location", default: "",
      doc:
        "The gallery flows enroll into and search: a SQLite file, or a postgres:// URL (run --gallery); "
        + "empty for the user's own, $XDG_DATA_HOME/workbench/gallery.sqlite"),
    .number(
      // Through its shortest text, so that the default reads 0.6, not 0.6000000238.
      "gallery.threshold", default: Double("\(Gallery.defaultThreshold)") ?? 0.6, minimum: 0.05, maximum: 1.5,
      doc: "Two faces are the same person when their descriptors are nearer than this (dlib's usual 0.6)"),
  ]
}
