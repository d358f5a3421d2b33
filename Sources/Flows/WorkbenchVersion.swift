/// The version every session record and report carries.
public enum WorkbenchVersion {
  public static let current = "0.1.0"
}
