/// Chooses the estimators a run needs and the order to run them in: the
/// providers of what the flow's steps read, then what those need, each
/// after the estimators it depends on.
public struct EstimatorGraph {
  public private(set) var ordered: [any Estimator]
  /// Everything the run reads: what the flow wants and what its estimators
  /// need from one another; nil when the flow did not say (it may read anything).
  public private(set) var reads: [String]?

  /// `wanted` are measurement paths the flow reads; nil means the flow did
  /// not say (a step without `needs`), and then every estimator runs.
  public init(available: [any Estimator], wanted: [String]?) throws(EstimatorError) {
    var byName: [String: any Estimator] = [:]
    for estimator in available {
      let name = estimator.descriptor.name
      if byName[name] != nil {
        throw EstimatorError(estimator: name, "two estimators have this name", help: "rename one of the plugins")
      }
      byName[name] = estimator
    }

    var chosen: [String] = []
    var chosenSet = Set<String>()
    if let wanted {
      var queue = wanted
      var index = 0
      while index < queue.count {
        let path = queue[index]
        index += 1
        let providers = EstimatorGraph.providers(of: path, in: available)
        for provider in providers where chosenSet.insert(provider.descriptor.name).inserted {
          chosen.append(provider.descriptor.name)
          queue += provider.descriptor.needs
        }
      }
      var seen = Set<String>()
      reads = queue.filter { seen.insert($0).inserted }
    } else {
      chosen = available.map(\.descriptor.name)
      chosenSet = Set(chosen)
    }

    // Each chosen estimator's needs must be provided by someone chosen.
    for name in chosen {
      let estimator = byName[name]!
      for need in estimator.descriptor.needs
      where EstimatorGraph.providers(of: need, in: available).isEmpty {
        throw EstimatorError(
          estimator: name, "needs '\(need)', which no estimator provides",
          help: "install the plugin that provides it; 'workbench estimators' lists what is available")
      }
    }

    // Depth-first topological order; the order of `available` breaks ties,
    // so the same set always runs in the same order.
    var state: [String: Int] = [:]  // 1 visiting, 2 done
    var order: [any Estimator] = []
    func visit(_ name: String, path: [String]) throws(EstimatorError) {
      if state[name] == 2 { return }
      if state[name] == 1 {
        throw EstimatorError(
          estimator: name, "depends on itself: " + (path + [name]).joined(separator: " → "),
          help: "an estimator cannot need what it provides, directly or through others")
      }
      state[name] = 1
      let estimator = byName[name]!
      for need in estimator.descriptor.needs {
        for provider in EstimatorGraph.providers(of: need, in: available)
        where chosenSet.contains(provider.descriptor.name) && provider.descriptor.name != name {
          try visit(provider.descriptor.name, path: path + [name])
        }
      }
      state[name] = 2
      order.append(estimator)
    }
    for estimator in available where chosenSet.contains(estimator.descriptor.name) {
      try visit(estimator.descriptor.name, path: [])
    }
    ordered = order
  }

  /// Estimators that provide `path`: one that provides it exactly, one that
  /// provides a group containing it, or (when `path` is a group) one that
  /// provides something inside it.
  static func providers(of path: String, in estimators: [any Estimator]) -> [any Estimator] {
    estimators.filter { estimator in
      estimator.descriptor.provides.contains { provided in
        provided == path || path.hasPrefix(provided + ".") || provided.hasPrefix(path + ".")
      }
    }
  }

  /// The narrowest image every estimator of the run still works at, or nil
  /// when one of them needs full resolution.
  public var workingWidth: Int? {
    var widest = 0
    for estimator in ordered {
      guard let width = estimator.descriptor.workingWidth else { return nil }
      widest = max(widest, width)
    }
    return ordered.isEmpty ? nil : widest
  }

  /// Whether any of the run's estimators reads colour.
  public var needsColor: Bool { ordered.contains { $0.descriptor.image == .color } }

  /// Measurement paths no available estimator provides, among `wanted`:
  /// they can only come from a trace.
  public static func unprovided(_ wanted: [String], available: [any Estimator]) -> [String] {
    wanted.filter { providers(of: $0, in: available).isEmpty }
  }
}
