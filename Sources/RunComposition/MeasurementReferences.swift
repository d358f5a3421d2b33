import Diagnostics
import Estimators
import FaceEstimation
import Flows
import LivenessService
import Logging
import Measurements
import MotionCues
import PresentationAttack
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
    var catalog = MeasurementCatalog(available(home, settings: settings, logger: logger).flatMap(\.descriptor.fields))
    for field in faceFields { catalog.add(field) }
    return MeasurementReference(
      catalog: catalog, missing: "no estimator provides",
      listing: "'workbench estimators --fields' lists every measurement")
  }

  /// The face measurements, declared whether or not the face backend and
  /// the recognition models are installed: a missing backend is a run's
  /// error, not a misspelled field.
  public static let faceFields =
    FaceEstimator.measurementFields + [MeasurementField("face.descriptor", .onRequest)]
    + PassiveLivenessEstimator.measurementFields + LivenessServiceEstimator.measurementFields
    + FaceMotionEstimator.measurementFields

  /// The estimators a run could have, asking for nothing (so that a
  /// missing face backend is not tried, nor warned about).
  public static func available(_ home: WorkbenchHome, settings: ResolvedSettings?, logger: Logger) -> [any Estimator] {
    StandardEstimators.availableEstimators(home, settings: settings, wanted: [], logger: logger)
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
