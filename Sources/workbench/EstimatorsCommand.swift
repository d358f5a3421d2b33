import ArgumentParser
import Diagnostics
import Estimators
import FaceEstimation
import FaceRecognition
import Flows
import JSONCore
import Logging
import RunComposition
import Session
import Settings

struct EstimatorsCommand: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "estimators",
    abstract: "List the built-in and plugin estimators and the measurements they provide.",
    discussion: """
      Plugins are shared libraries under plugins/ that speak the C ABI of \
      workbench_plugin.h (docs/plugins.md). A plugin that cannot be loaded, or that \
      speaks another ABI version, is listed with the reason and skipped.

      Examples:
        workbench estimators
        workbench estimators --fields
        workbench estimators --json
      """)

  @Flag(name: .long, help: "Print JSON instead of a table.")
  var json = false

  @Flag(name: .long, help: "List every measurement with its type (# in a name is any position: face.faces.1.yaw).")
  var fields = false

  @OptionGroup var logging: LoggingOptions

  func run() throws {
    do { _ = try logging.bootstrap() } catch { throw fail(error) }
    let home: WorkbenchHome
    do { home = try WorkbenchHome.locate() } catch { throw fail(error) }
    let (_, reports) = PluginLoader.load(
      directory: home.nativePlugins, display: WorkbenchHome.display(home.nativePlugins))
    let estimators = StandardEstimators.availableEstimators(home, logger: Logger(label: "workbench"))
    if json {
      let list: [JSONValue] = estimators.map { estimator in
        let descriptor = estimator.descriptor
        return .object(
          JSONObject([
            ("name", .string(descriptor.name)), ("origin", .string(descriptor.origin)),
            ("summary", .string(descriptor.summary)), ("provides", .array(descriptor.provides.map { .string($0) })),
            ("needs", .array(descriptor.needs.map { .string($0) })),
            (
              "fields",
              .array(
                descriptor.fields.map {
                  .object(JSONObject([("path", .string($0.path)), ("type", .string($0.type.rawValue))]))
                })
            ),
            ("image", .string(descriptor.image == .color ? "color" : "gray")),
          ]))
      }
      let skipped: [JSONValue] = reports.compactMap { report in
        guard case .skipped(let reason) = report.outcome else { return nil }
        return .object(JSONObject([("file", .string(report.file)), ("reason", .string(reason))]))
      }
      standardOutput(
        JSONValue.object(JSONObject([("estimators", .array(list)), ("skipped", .array(skipped))])).jsonText)
      return
    }
    var lines: [String] = []
    if fields {
      // What `check` holds flows against: the estimators' fields, and the
      // face's whether or not its backend is installed here.
      var rows: [(path: String, type: String, estimator: String)] = []
      for estimator in estimators {
        for field in estimator.descriptor.fields {
          rows.append((field.path, field.type.rawValue, estimator.descriptor.name))
        }
      }
      for field in MeasurementReferences.faceFields where !rows.contains(where: { $0.path == field.path }) {
        let owner = field.path == "face.descriptor" ? FaceDescriptorEstimator.name : FaceEstimator.name
        rows.append((field.path, field.type.rawValue, owner + " (not installed)"))
      }
      let width = rows.map(\.path.count).max() ?? 0
      for row in rows {
        lines.append(
          row.path.padding(toLength: width + 2, withPad: " ", startingAt: 0)
            + row.type.padding(toLength: 12, withPad: " ", startingAt: 0) + row.estimator)
      }
      standardOutput(lines.joined(separator: "\n"))
      return
    }
    for estimator in estimators {
      let descriptor = estimator.descriptor
      lines.append("\(descriptor.name)  (\(descriptor.origin))  \(descriptor.summary)")
      lines.append("    provides: " + descriptor.provides.joined(separator: ", "))
      if !descriptor.needs.isEmpty { lines.append("    needs: " + descriptor.needs.joined(separator: ", ")) }
    }
    for report in reports {
      if case .skipped(let reason) = report.outcome { lines.append("skipped plugin \(report.file): \(reason)") }
    }
    standardOutput(lines.joined(separator: "\n"))
  }
}
