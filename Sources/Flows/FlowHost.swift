import Diagnostics
import JSONCore
import Logging
import Messages
import Reporting
import Scripting
import Settings

/// What a flow can ask of the host, as `require "wb.native"` offers it
/// (plugins/wb wraps each for flows: wb.log, ctx.hint, …).
public enum FlowHostFunctions {
  public static let names = [
    "log", "hint", "status", "settings", "text", "event", "capture", "intermediate", "describe_face", "identity",
    "command",
  ]
}

/// Who a face is: what a run offers the flow when it can describe faces
/// (a step needs `face.descriptor`). The session provides it; every answer
/// is a table for the flow, and each call is an `identity` event.
public protocol FaceIdentity: AnyObject {
  /// Describes the face of the frame being processed, from `source`
  /// ("face": the live face; "portrait": the card's portrait), and keeps
  /// the descriptor under `name`. Answers `{ found = true }` or
  /// `{ found = false, error = name, message = text }`.
  func describe(_ name: String, source: String) -> JSONObject
  /// A gallery operation ("enroll", "add_faces", "verify", "identify",
  /// "compare") on kept descriptors; answers the result, or `{ error = name, message = text }`.
  func perform(_ operation: String, _ arguments: JSONObject) -> JSONObject
}

/// Answers the flow's calls into the host: logging, hints, statuses,
/// settings and texts. Events are stamped with the frame being processed.
final class FlowHost: ScriptHost {
  var settingsBuilder: SettingsBuilder
  var settings: ResolvedSettings
  let catalogs: MessageCatalogs
  let flowDisplayPath: String
  let logger: Logger
  var sink: (any EventSink)?
  var currentT: Double = 0
  var currentFrame: Int64 = 0
  /// Keeps the images of the frame being processed under a capture name
  /// and says where; nil, or a nil answer, when the run keeps no images
  /// (a trace has none; frames are kept only with --artifacts).
  var capturer: ((String) -> CaptureFiles?)?
  /// The flow's own message key of a result reason (wb.flow's `results`).
  var resultKeys: [String: String] = [:]
  /// Describes faces and asks the gallery; nil when the run cannot.
  var identity: (any FaceIdentity)?
  /// The run's captures in order: name → { t, frame, images[, methods] }.
  private(set) var captures = JSONObject()
  /// Commands whoever drives the run sent (`best_shot`), not yet taken by
  /// the flow; a few at most, since each name is kept once.
  var pendingCommands: [String] = []
  /// Keys asked for that no catalog has; each is logged once.
  private var warnedKeys: Set<String> = []
  private var language: String
  private var fallback: String

  init(settingsBuilder: SettingsBuilder, catalogs: MessageCatalogs, flowDisplayPath: String, logger: Logger) {
    self.settingsBuilder = settingsBuilder
    self.settings = settingsBuilder.resolve().settings
    self.catalogs = catalogs
    self.flowDisplayPath = flowDisplayPath
    self.logger = logger
    language = settings.string("messages.language") ?? "en"
    fallback = settings.string("messages.fallback") ?? "en"
  }

  /// Re-reads everything that depends on settings.
  func settingsChanged(_ resolved: ResolvedSettings) {
    settings = resolved
    language = resolved.string("messages.language") ?? "en"
    fallback = resolved.string("messages.fallback") ?? "en"
  }

  func emit(_ type: String, _ fields: JSONObject) {
    sink?.emit(Event(type: type, t: currentT, frame: currentFrame, fields: fields))
  }

  func localized(_ key: String, parameters: JSONObject?) -> LocalizedText {
    if let text = catalogs.text(for: key, language: language, fallback: fallback, parameters: parameters) {
      return text
    }
    if warnedKeys.insert(key).inserted {
      logger.warning("message key '\(key)' is in no catalog; showing the key itself (run 'workbench check')")
    }
    return LocalizedText(text: key, language: language)
  }

  var functionNames: [String] { FlowHostFunctions.names }

  func call(_ function: String, arguments: [JSONValue]) throws(HostCallFailure) -> String? {
    switch function {
    case "log":
      let level = Logger.Level(rawValue: arguments.first?.stringValue ?? "info") ?? .info
      let message = arguments.count > 1 ? (arguments[1].stringValue ?? arguments[1].jsonText) : ""
      logger.log(level: level, "\(message)", metadata: ["flow": .string(flowDisplayPath)])
      return nil

    case "hint":
      guard let key = arguments.first?.stringValue, !key.isEmpty else {
        throw HostCallFailure("hint(key, params): the key must be a message key string")
      }
      let parameters = try parametersArgument(arguments, at: 1, of: "hint")
      let text = localized(key, parameters: parameters)
      var fields = JSONObject([("key", .string(key)), ("text", .string(text.text)), ("lang", .string(text.language))])
      if let parameters, !parameters.isEmpty { fields["params"] = .object(parameters) }
      emit("hint", fields)
      return nil

    case "status":
      guard let name = arguments.first?.stringValue, !name.isEmpty else {
        throw HostCallFailure("status(name, fields): the name must be a string such as \"ORTH\"")
      }
      var fields = JSONObject([("status", .string(name))])
      if let extra = try parametersArgument(arguments, at: 1, of: "status") {
        for (key, value) in extra where key != "status" { fields[key] = value }
      }
      emit("status", fields)
      return nil

    case "event":
      guard let kind = arguments.first?.stringValue, !kind.isEmpty else {
        throw HostCallFailure("event(type, fields): the type must be a string")
      }
      let fields = try parametersArgument(arguments, at: 1, of: "event") ?? JSONObject()
      emit("flow." + kind, fields)
      return nil

    case "capture":
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

    case "intermediate":
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

    case "describe_face":
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

    case "identity":
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

    case "command":
      guard let name = arguments.first?.stringValue, FlowHost.isSlug(name) else {
        throw HostCallFailure("command(name): the name must be a slug such as \"best_shot\"")
      }
      guard let index = pendingCommands.firstIndex(of: name) else { return "false" }
      pendingCommands.remove(at: index)
      return "true"

    case "text":
      guard let key = arguments.first?.stringValue else {
        throw HostCallFailure("text(key, params): the key must be a message key string")
      }
      let parameters = try parametersArgument(arguments, at: 1, of: "text")
      return LuaLiteral.string(localized(key, parameters: parameters).text)

    case "settings":
      let request = arguments.first?.objectValue ?? JSONObject()
      try applySettings(request)
      return LuaLiteral.encode(settings.nested)

    default:
      throw HostCallFailure("the host has no function '\(function)'")
    }
  }

  private func requireIdentity() throws(HostCallFailure) -> any FaceIdentity {
    guard let identity else {
      throw HostCallFailure(
        "this run describes no faces: a step of the flow must need \"face.descriptor\" (needs = { \"face.descriptor\" }), and the input must be a recording or a camera"
      )
    }
    return identity
  }

  /// The text of the flow's own key for `reason` (wb.flow's `results`), else
  /// of message key `result.<reason>` in the run's language, else
  /// the engine's plain English for its own reasons, else the reason in words.
  func resultMessage(_ reason: String) -> String {
    if let key = resultKeys[reason], let text = catalogs.text(for: key, language: language, fallback: fallback) {
      return text.text
    }
    return catalogs.text(for: "result." + reason, language: language, fallback: fallback)?.text
      ?? FlowHost.defaultResultMessages[reason] ?? reason.replacingOccurrences(of: "_", with: " ")
  }

  static let defaultResultMessages: [String: String] = [
    "passed": "passed",
    "step_failed": "a step failed",
    "step_timeout": "a step took too long",
    "time_limit": "the flow took too long",
    "end_of_input": "the input ended before the flow finished",
    "script_error": "the flow script failed",
    "limit_exceeded": "the flow script exceeded a limit",
    "input_error": "the input could not be read",
    "camera_lost": "the camera was disconnected",
    "usage_error": "the run could not start",
    "initialization_failed": "an estimator could not start",
    "closed": "the session was closed",
  ]

  static func isSlug(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.count <= 64
      && text.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
          || byte == UInt8(ascii: "-")
      }
  }

  private func parametersArgument(_ arguments: [JSONValue], at index: Int, of function: String)
    throws(HostCallFailure) -> JSONObject?
  {
    guard index < arguments.count else { return nil }
    switch arguments[index] {
    case .null: return nil
    case .object(let object): return object
    default:
      throw HostCallFailure("\(function): the second argument must be a table of named values, e.g. { seconds = 3 }")
    }
  }

  private func applySettings(_ request: JSONObject) throws(HostCallFailure) {
    // The file that called wb.settings: a module the flow requires (hkid.lua
    // for hkid-2018.lua) declares its own settings.
    let caller = request["where"]?.stringValue.flatMap(FlowDescription.location)
    let source = SettingSource(layer: .flow, origin: caller?.file ?? flowDisplayPath, line: caller?.line)
    for (key, spec) in request["declare"]?.objectValue ?? JSONObject() {
      guard case .object(let fields) = spec else { continue }
      settingsBuilder.declare(try FlowHost.declaration(key: key, fields), source: source)
    }
    for (key, value) in request["values"]?.objectValue ?? JSONObject() {
      settingsBuilder.assign(key, value, source: source)
    }
    settingsChanged(settingsBuilder.resolve().settings)
  }

  /// A setting declared by a flow: { type =, default =, min =, max =, choices =, doc =, unit = }.
  static func declaration(key: String, _ fields: JSONObject) throws(HostCallFailure) -> SettingDeclaration {
    let known: Set<String> = ["type", "default", "min", "max", "choices", "doc", "unit"]
    if let unknown = fields.keys.first(where: { !known.contains($0) }) {
      throw HostCallFailure(
        "setting '\(key)': unknown field '\(unknown)' (known: \(known.sorted().joined(separator: ", ")))")
    }
    guard let defaultJSON = fields["default"] else {
      throw HostCallFailure("setting '\(key)' needs a default value (default = ...)")
    }
    guard let doc = fields["doc"]?.stringValue, !doc.isEmpty else {
      throw HostCallFailure("setting '\(key)' needs one line of doc (doc = \"...\")")
    }
    let choices = fields["choices"]?.arrayValue?.compactMap(\.stringValue)
    let typeName =
      fields["type"]?.stringValue
      ?? {
        switch defaultJSON {
        case .integer: return "integer"
        case .number: return "number"
        case .bool: return "boolean"
        default: return choices == nil ? "string" : "choice"
        }
      }()
    let type: SettingType
    let value: SettingValue
    switch (typeName, defaultJSON) {
    case ("number", _) where defaultJSON.doubleValue != nil:
      type = .number
      value = .number(defaultJSON.doubleValue!)
    case ("integer", _) where defaultJSON.integerValue != nil:
      type = .integer
      value = .integer(defaultJSON.integerValue!)
    case ("boolean", .bool(let bool)):
      type = .boolean
      value = .boolean(bool)
    case ("string", .string(let string)):
      type = .string
      value = .string(string)
    case ("choice", .string(let string)):
      guard let choices, !choices.isEmpty else {
        throw HostCallFailure("setting '\(key)': a choice needs choices = { \"a\", \"b\", ... }")
      }
      type = .choice(choices)
      value = .string(string)
    case ("number", _), ("integer", _), ("boolean", _), ("string", _), ("choice", _):
      let article = typeName.first.map { "aeiou".contains($0) } == true ? "an" : "a"
      throw HostCallFailure("setting '\(key)': the default \(defaultJSON.jsonText) is not \(article) \(typeName)")
    default:
      throw HostCallFailure(
        "setting '\(key)': unknown type '\(typeName)' (number, integer, boolean, string or choice)")
    }
    return SettingDeclaration(
      key: key, type: type, defaultValue: value, minimum: fields["min"]?.doubleValue,
      maximum: fields["max"]?.doubleValue, doc: doc, unit: fields["unit"]?.stringValue)
  }
}

/// What a capture wrote: the path of each image by name, and, for an
/// image an estimator can find more than one way, how it was found
/// (`{ "portrait": "face" }`; empty when none says).
public struct CaptureFiles {
  public var images: JSONObject
  public var methods: JSONObject

  public init(images: JSONObject, methods: JSONObject) {
    self.images = images
    self.methods = methods
  }
}
