/// Limits that keep one flow from taking the host down with it.
public struct ScriptLimits: Sendable, Equatable {
  /// Bytes the Lua state may hold; 0 for no cap.
  public var memoryLimit: Int
  /// VM instructions per call into the script; 0 for no budget.
  public var instructionLimit: Int64
  /// Largest estimated step count of one string-pattern operation.
  public var patternBudget: Double

  /// The defaults: the engine's settings (lua.memory_limit,
  /// lua.instruction_limit, lua.pattern_budget) declare these values.
  public static let standard = ScriptLimits(
    memoryLimit: 64 << 20, instructionLimit: 10_000_000, patternBudget: 1e8)

  public init(
    memoryLimit: Int = standard.memoryLimit, instructionLimit: Int64 = standard.instructionLimit,
    patternBudget: Double = standard.patternBudget
  ) {
    self.memoryLimit = memoryLimit
    self.instructionLimit = instructionLimit
    self.patternBudget = patternBudget
  }
}
