import Diagnostics
import JSONCore
import Logging
import Messages
import Reporting
import Scripting
import Settings

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
  var captures = JSONObject()
  /// Commands whoever drives the run sent (`best_shot`), not yet taken by
  /// the flow; a few at most, since each name is kept once.
  var pendingCommands: [String] = []
  /// The session's score, as the flow's `score` function gave it when the
  /// flow finished; nil when it declares none or gave nil.
  var score: Double?
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

  /// A host for another session of the same load: the settings, messages
  /// and result keys as loading left them, nothing of a session's own.
  init(afterLoadOf loaded: FlowHost) {
    settingsBuilder = loaded.settingsBuilder
    settings = loaded.settings
    catalogs = loaded.catalogs
    flowDisplayPath = loaded.flowDisplayPath
    logger = loaded.logger
    resultKeys = loaded.resultKeys
    language = loaded.language
    fallback = loaded.fallback
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
    guard let handler = FlowHostFunctions.handler(function) else {
      throw HostCallFailure("the host has no function '\(function)'")
    }
    return try handler(self, arguments)
  }

  /// The text of the flow's own key for `reason` (wb.flow's `results`), else
  /// of message key `result.<reason>` in the run's language, else
  /// the engine's plain English for its own reasons, else the reason in words.
  func resultMessage(_ reason: String) -> String {
    if let key = resultKeys[reason], let text = catalogs.text(for: key, language: language, fallback: fallback) {
      return text.text
    }
    return catalogs.text(for: "result." + reason, language: language, fallback: fallback)?.text
      ?? ResultReason.defaultMessages[reason] ?? reason.replacingOccurrences(of: "_", with: " ")
  }

  static func isSlug(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.count <= 64
      && text.utf8.allSatisfy { byte in
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
          || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
          || byte == UInt8(ascii: "-")
      }
  }

  func applySettings(_ request: JSONObject) throws(HostCallFailure) {
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
