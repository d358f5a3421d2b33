import Diagnostics
import Foundation
import JSONCore
import Reporting

/// The session report: one self-contained HTML page of one run, with the
/// measurements the flow saw plotted over time, its steps, statuses, hints,
/// captured images, settings and result (docs/report.md).
///
/// The page has no external references: the stylesheet is inline, the plots
/// are inline SVG and the images are `data:` URIs, so it can be mailed or
/// attached to a CI job. The same input always gives the same bytes.
public enum SessionReport {
  /// The file name the report is written under inside its folder.
  public static let fileName = "report.html"

  /// What a run produced, as the report reads it.
  public struct Input: Sendable {
    /// The events of the run, one JSON object each (docs/events.md), in order.
    public var events: [JSONValue]
    /// The frames the flow saw: trace records with `t`, `frame` and nested
    /// measurements (docs/traces.md), without the header line.
    public var frames: [JSONValue]
    /// The effective settings, in the order they are listed.
    public var settings: [Setting]
    /// The flow's name; the `session` event's `flow` when nil.
    public var flowName: String?
    /// The flow's file; the `session` event's `file` when nil.
    public var flowFile: String?
    /// Threshold lines to draw besides those the rules find in the settings.
    public var thresholds: [Threshold]
    /// The rules that turn settings into threshold lines; empty draws only `thresholds`.
    public var thresholdRules: [ThresholdRule]
    /// Folders in which image paths of `capture` events that are not absolute
    /// are looked for, in order (the run's working folder first).
    public var imageFolders: [String]
    /// The most plots the page shows.
    public var maximumPlots: Int

    public init(
      events: [JSONValue], frames: [JSONValue] = [], settings: [Setting] = [], flowName: String? = nil,
      flowFile: String? = nil, thresholds: [Threshold] = [], thresholdRules: [ThresholdRule] = ThresholdRule.defaults,
      imageFolders: [String] = ["."], maximumPlots: Int = 12
    ) {
      self.events = events
      self.frames = frames
      self.settings = settings
      self.flowName = flowName
      self.flowFile = flowFile
      self.thresholds = thresholds
      self.thresholdRules = thresholdRules
      self.imageFolders = imageFolders
      self.maximumPlots = maximumPlots
    }
  }

  /// One row of the effective settings (`workbench settings --json`).
  public struct Setting: Sendable, Equatable {
    public var key: String
    public var value: JSONValue
    /// Where the value came from, such as `default`, `flow` or `--set`.
    public var source: String

    public init(key: String, value: JSONValue, source: String) {
      self.key = key
      self.value = value
      self.source = source
    }
  }

  /// A horizontal line drawn on the plot of one measurement.
  public struct Threshold: Sendable, Equatable {
    /// The measurement's dotted path, such as `card.tilt_y`.
    public var path: String
    public var value: Double
    /// The text beside the line, such as `hkid.flip_angle`.
    public var label: String

    public init(path: String, value: Double, label: String) {
      self.path = path
      self.value = value
      self.label = label
    }
  }

  /// The page for `input`, as UTF-8 text.
  public static func render(_ input: Input) -> String {
    PageBuilder(input: input).page()
  }

  /// Writes the page to `folder/report.html` through a temporary file renamed
  /// into place, creating `folder` when its parent exists. Returns the path.
  @discardableResult
  public static func write(_ input: Input, to folder: String) throws(WorkbenchError) -> String {
    try prepareFolder(folder)
    let path = (folder as NSString).appendingPathComponent(fileName)
    let output = try OutputFile(path: path)
    output.write(Array(render(input).utf8))
    try output.finish()
    return path
  }

  private static func prepareFolder(_ folder: String) throws(WorkbenchError) {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw WorkbenchError(
          .usage, "is a file, not a folder", at: SourceLocation(file: folder),
          help: "the report is written as \(fileName) inside a folder; give a folder path")
      }
      return
    }
    let parent = (folder as NSString).deletingLastPathComponent
    let parentFolder = parent.isEmpty ? "." : parent
    guard FileManager.default.fileExists(atPath: parentFolder, isDirectory: &isDirectory), isDirectory.boolValue
    else {
      throw WorkbenchError(
        .usage, "the folder \(parentFolder) does not exist", at: SourceLocation(file: folder),
        help: "create it first or choose another report folder")
    }
    do {
      try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
    } catch {
      throw WorkbenchError(
        .usage, "cannot create the folder: \(error.localizedDescription)", at: SourceLocation(file: folder),
        help: "check the permissions of \(parentFolder) or choose another report folder")
    }
  }
}
