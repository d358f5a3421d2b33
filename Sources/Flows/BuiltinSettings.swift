import FaceEstimation
import Settings

/// The settings every run has. Flows declare their own on top (wb.settings).
public enum BuiltinSettings {
  public static let declarations: [SettingDeclaration] =
    engine + FaceEstimators.settingDeclarations + CardEstimators.settingDeclarations

  /// The engine's own settings.
  static let engine: [SettingDeclaration] = [
    SettingDeclaration(
      key: "flow.time_limit", type: .number, defaultValue: .number(60), minimum: 0, maximum: 3600,
      doc: "Total time the flow may take; 0 for no limit", unit: "s"),
    SettingDeclaration(
      key: "flow.step_timeout", type: .number, defaultValue: .number(5), minimum: 0, maximum: 3600,
      doc: "Time a step may take when it sets no timeout of its own; 0 for none", unit: "s"),
    SettingDeclaration(
      key: "flow.step_delay", type: .number, defaultValue: .number(0), minimum: 0, maximum: 60,
      doc: "Pause between a step passing and the next one starting", unit: "s"),
    SettingDeclaration(
      key: "flow.order", type: .choice(["fixed", "random"]), defaultValue: .string("fixed"),
      doc: "Run the steps in the order written, or draw them at random"),
    SettingDeclaration(
      key: "flow.pick", type: .integer, defaultValue: .integer(0), minimum: 0, maximum: 100,
      doc: "With random order: how many steps to draw from the flow's pool; 0 for all"),
    SettingDeclaration(
      key: "flow.seed", type: .integer, defaultValue: .integer(0), minimum: 0, maximum: 4_294_967_295,
      doc: "Seed of the random step order and of math.random; 0: with random order, a new one each run (reported)"),
    SettingDeclaration(
      key: "messages.language", type: .string, defaultValue: .string("en"),
      doc: "Language of the hints (a catalog in configs/messages/)"),
    SettingDeclaration(
      key: "messages.fallback", type: .string, defaultValue: .string("en"),
      doc: "Language used for a key that the chosen language's catalog lacks"),
    SettingDeclaration(
      key: "lua.instruction_limit", type: .integer, defaultValue: .integer(10_000_000), minimum: 10_000,
      maximum: 10_000_000_000, doc: "Lua VM instructions one call into the flow may run before it is stopped"),
    SettingDeclaration(
      key: "lua.memory_limit", type: .integer, defaultValue: .integer(64), minimum: 1, maximum: 4096,
      doc: "Memory the flow's Lua state may hold", unit: "MiB"),
    SettingDeclaration(
      key: "lua.pattern_budget", type: .number, defaultValue: .number(1e8), minimum: 1e4, maximum: 1e12,
      doc: "Largest estimated cost of one string.find/match/gmatch/gsub; costlier patterns are refused"),
    SettingDeclaration(
      key: "integrity.signing_key", type: .string, defaultValue: .string(""),
      doc:
        "Ed25519 private key file (workbench license keygen) that signs a run's artifacts into --artifacts/signature.json; empty: no signature"
    ),
  ]
}
