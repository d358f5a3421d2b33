import JSONCore
import Logging
import Scripting

/// What a flow can ask of the host, as `require "wb.native"` offers it
/// (plugins/wb wraps each for flows: wb.log, ctx.hint, …): one entry per
/// function, which both offers it to the Lua state and answers its calls.
/// `where` is not here: the VM offers it to every host (Scripting's
/// `VMFunctions`), through the same registration and dispatch.
public enum FlowHostFunctions {
  /// Called with the host itself: an unapplied method (`FlowHost.answerHint`) would
  /// build a closure on every call, and `hint` may be called on every frame.
  typealias Handler = @Sendable (FlowHost, [JSONValue]) throws(HostCallFailure) -> String?

  /// In the order they are offered.
  static let table: [(name: String, handler: Handler)] = [
    ("log", { host, arguments in host.answerLog(arguments) }),
    ("hint", { host, arguments throws(HostCallFailure) in try host.answerHint(arguments) }),
    ("status", { host, arguments throws(HostCallFailure) in try host.answerStatus(arguments) }),
    ("settings", { host, arguments throws(HostCallFailure) in try host.answerSettings(arguments) }),
    ("text", { host, arguments throws(HostCallFailure) in try host.answerText(arguments) }),
    ("event", { host, arguments throws(HostCallFailure) in try host.answerEvent(arguments) }),
    ("capture", { host, arguments throws(HostCallFailure) in try host.answerCapture(arguments) }),
    ("intermediate", { host, arguments throws(HostCallFailure) in try host.answerIntermediate(arguments) }),
    ("describe_face", { host, arguments throws(HostCallFailure) in try host.answerDescribeFace(arguments) }),
    ("identity", { host, arguments throws(HostCallFailure) in try host.answerIdentity(arguments) }),
    ("command", { host, arguments throws(HostCallFailure) in try host.answerCommand(arguments) }),
    ("score", { host, arguments throws(HostCallFailure) in try host.answerScore(arguments) }),
  ]

  public static let names = table.map(\.name)

  /// The handler of `name`. A look along twelve short names costs less than
  /// hashing the name, and `hint` may be called on every frame.
  static func handler(_ name: String) -> Handler? {
    for entry in table where entry.name == name { return entry.handler }
    return nil
  }
}

extension FlowHost {
  func answerLog(_ arguments: [JSONValue]) -> String? {
    let level = Logger.Level(rawValue: arguments.first?.stringValue ?? "info") ?? .info
    let message = arguments.count > 1 ? (arguments[1].stringValue ?? arguments[1].jsonText) : ""
    logger.log(level: level, "\(message)", metadata: ["flow": .string(flowDisplayPath)])
    return nil
  }

  func answerHint(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let key = arguments.first?.stringValue, !key.isEmpty else {
      throw HostCallFailure("hint(key, params): the key must be a message key string")
    }
    let parameters = try parametersArgument(arguments, at: 1, of: "hint")
    let text = localized(key, parameters: parameters)
    var fields = JSONObject([("key", .string(key)), ("text", .string(text.text)), ("lang", .string(text.language))])
    if let parameters, !parameters.isEmpty { fields["params"] = .object(parameters) }
    emit("hint", fields)
    return nil
  }

  func answerStatus(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let name = arguments.first?.stringValue, !name.isEmpty else {
      throw HostCallFailure("status(name, fields): the name must be a string such as \"ORTH\"")
    }
    var fields = JSONObject([("status", .string(name))])
    if let extra = try parametersArgument(arguments, at: 1, of: "status") {
      for (key, value) in extra where key != "status" { fields[key] = value }
    }
    emit("status", fields)
    return nil
  }

  func answerSettings(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    let request = arguments.first?.objectValue ?? JSONObject()
    try applySettings(request)
    return LuaLiteral.encode(settings.nested)
  }

  func answerText(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let key = arguments.first?.stringValue else {
      throw HostCallFailure("text(key, params): the key must be a message key string")
    }
    let parameters = try parametersArgument(arguments, at: 1, of: "text")
    return LuaLiteral.string(localized(key, parameters: parameters).text)
  }

  func answerEvent(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let kind = arguments.first?.stringValue, !kind.isEmpty else {
      throw HostCallFailure("event(type, fields): the type must be a string")
    }
    let fields = try parametersArgument(arguments, at: 1, of: "event") ?? JSONObject()
    emit("flow." + kind, fields)
    return nil
  }

  func answerCapture(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let name = arguments.first?.stringValue, FlowHost.isSlug(name) else {
      throw HostCallFailure(
        "capture(name): the name must be 1 to 64 letters, digits, '_' or '-', such as \"first\"")
    }
    let files = capturer?(name)
    let imagesValue = files.map { JSONValue.object($0.images) } ?? .null
    // How an image was found (the portrait: by face or by layout), when an estimator says.
    let methods = files.map(\.methods).flatMap { $0.isEmpty ? nil : JSONValue.object($0) }
    var event = JSONObject([("name", .string(name)), ("images", imagesValue)])
    event["methods"] = methods
    emit("capture", event)
    var record = JSONObject([
      ("t", .number(currentT.roundedToMicroseconds)), ("frame", .integer(currentFrame)),
      ("images", imagesValue),
    ])
    record["methods"] = methods
    captures[name] = .object(record)
    return files.map { LuaLiteral.encode(.object($0.images)) }
  }

  func answerIntermediate(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let reason = arguments.first?.stringValue, FlowHost.isSlug(reason) else {
      throw HostCallFailure("intermediate(reason, code, fields): the reason must be a slug such as \"first\"")
    }
    guard arguments.count > 1, let code = arguments[1].integerValue, code >= 0 else {
      throw HostCallFailure("intermediate(reason, code, fields): the code must be a whole number of at least 0")
    }
    var fields = JSONObject([
      ("code", .integer(code)), ("reason", .string(reason)), ("message", .string(resultMessage(reason))),
    ])
    if let extra = try parametersArgument(arguments, at: 2, of: "intermediate") {
      for (key, value) in extra where fields[key] == nil { fields[key] = value }
    }
    emit("intermediate", fields)
    return nil
  }

  func answerDescribeFace(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let name = arguments.first?.stringValue, FlowHost.isSlug(name) else {
      throw HostCallFailure("describe_face(name, source): the name must be a slug such as \"live\"")
    }
    let source = arguments.count > 1 ? arguments[1].stringValue ?? "" : "face"
    guard source == "face" || source == "portrait" else {
      throw HostCallFailure("describe_face(name, source): the source is \"face\" or \"portrait\", not \"\(source)\"")
    }
    let answer = try requireIdentity().describe(name, source: source)
    var fields = JSONObject([
      ("operation", .string("describe")), ("name", .string(name)), ("source", .string(source)),
    ])
    for (key, value) in answer { fields[key] = value }
    emit("identity", fields)
    return LuaLiteral.encode(.object(answer))
  }

  func answerIdentity(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let operation = arguments.first?.stringValue,
      ["enroll", "add_faces", "verify", "identify", "compare"].contains(operation)
    else {
      throw HostCallFailure(
        "identity(operation, fields): the operation is enroll, add_faces, verify, identify or compare")
    }
    let request = try parametersArgument(arguments, at: 1, of: "identity") ?? JSONObject()
    let answer = try requireIdentity().perform(operation, request)
    var fields = JSONObject([("operation", .string(operation))])
    for (key, value) in answer { fields[key] = value }
    emit("identity", fields)
    return LuaLiteral.encode(.object(answer))
  }

  func answerCommand(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let name = arguments.first?.stringValue, FlowHost.isSlug(name) else {
      throw HostCallFailure("command(name): the name must be a slug such as \"best_shot\"")
    }
    guard let index = pendingCommands.firstIndex(of: name) else { return "false" }
    pendingCommands.remove(at: index)
    return "true"
  }

  func answerScore(_ arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    guard let value = arguments.first?.doubleValue, value.isFinite else {
      throw HostCallFailure("score(value): the score must be a finite number")
    }
    score = value
    return nil
  }

  private func requireIdentity() throws(HostCallFailure) -> any FaceIdentity {
    guard let identity else {
      throw HostCallFailure(
        "this run describes no faces: a step of the flow must need \"face.descriptor\" (needs = { \"face.descriptor\" }), and the input must be a recording or a camera"
      )
    }
    return identity
  }

  /// The table of named values a function takes as its argument `index`
  /// (0-based), nil when it has none.
  private func parametersArgument(_ arguments: [JSONValue], at index: Int, of function: String)
    throws(HostCallFailure) -> JSONObject?
  {
    guard index < arguments.count else { return nil }
    switch arguments[index] {
    case .null: return nil
    case .object(let object): return object
    default:
      let ordinal = ["first", "second", "third"][index]
      throw HostCallFailure(
        "\(function): the \(ordinal) argument must be a table of named values, e.g. { seconds = 3 }")
    }
  }
}
