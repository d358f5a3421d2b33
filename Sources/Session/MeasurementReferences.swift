import Diagnostics
import Estimators
import FaceEstimation
import Flows
import Logging
import Measurements
import Settings

/// What `workbench check` holds a flow's fields against.
public enum MeasurementReferences {
  /// Every measurement the estimators of a run could provide: the built-in
  /// ones, the face estimator's whether or not its backend is installed
  /// (a missing backend is the run's error, not a misspelled field), and
  /// the plugins'.
  public static func estimators(_ home: WorkbenchHome, settings: ResolvedSettings?, logger: Logger)
    -> MeasurementReference
  {
    let estimators = RunAssembly.availableEstimators(
      home, settings: settings, wanted: ["face.descriptor"], logger: logger)
    var catalog = MeasurementCatalog(estimators.flatMap(\.descriptor.fields))
    for field in FaceEstimator.measurementFields { catalog.add(field) }
    return MeasurementReference(
      catalog: catalog, missing: "no estimator provides",
      listing: "'workbench estimators --fields' lists every measurement")
  }

  /// The measurements the trace at `path` holds (a run on it reads nothing else).
  public static func trace(_ path: String) throws(WorkbenchError) -> MeasurementReference {
    var reader = try TraceReader(path: path, schema: MeasurementSchema())
    let catalog = try MeasurementCatalog.reading(&reader)
    let name = WorkbenchHome.display(path)
    return MeasurementReference(
      catalog: catalog, missing: "the trace \(name) does not hold",
      listing: "a run on the trace reads only what it holds")
  }
}
