import Foundation

/// Where an installed file (a model, a library) is: the setting when it
/// names one, then the environment variable, then `fallback` inside the
/// workbench folder. Relative paths from settings or the environment are
/// taken from the current folder.
public enum InstalledFile {
  public static func path(
    setting: String, variable: String, fallback: String, home: String, settings: ResolvedSettings?,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    path(
      setting: setting, variable: variable, fallbackPath: home + "/" + fallback, settings: settings,
      environment: environment)
  }

  /// The same, with the fallback's whole path.
  public static func path(
    setting: String, variable: String, fallbackPath: String, settings: ResolvedSettings?,
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let value = settings?.string(setting), !value.isEmpty { return absolute(value) }
    if let value = environment[variable], !value.isEmpty { return absolute(value) }
    return fallbackPath
  }

  static func absolute(_ path: String) -> String {
    path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
  }
}
