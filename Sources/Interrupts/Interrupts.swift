import CInterrupts

/// Ctrl-C and SIGTERM only set a flag: the frame loop and the Lua count
/// hook both check it, so a run stops at a clean point and still writes its
/// result.
public enum Interrupts {
  public static func install() { wb_interrupt_install() }
  public static var pending: Bool { wb_interrupt_pending() != 0 }

  public static var signalName: String {
    switch wb_interrupt_signal() {
    case 15: return "SIGTERM"
    default: return "SIGINT"
    }
  }
}
