import Foundation
import Session

/// The live controls from the terminal's keyboard: space or p pauses and
/// resumes, r restarts, b starts the best-shot search, q closes. Only when
/// standard input is a terminal; Ctrl-C keeps its meaning (the terminal
/// still turns it into SIGINT).
public final class TerminalKeys: @unchecked Sendable {
  public static let help = "keys: space pause/resume · r restart · b best shot · q close"

  private let controls: ControlMailbox
  private let isPaused: @Sendable () -> Bool
  private let lock = NSLock()
  private var stopping = false
  private var saved = termios()
  private var changed = false
  private let done = DispatchSemaphore(value: 0)
  private var started = false

  /// `isPaused` tells which of pause and resume the space bar sends.
  public init(controls: ControlMailbox, isPaused: @escaping @Sendable () -> Bool) {
    self.controls = controls
    self.isPaused = isPaused
  }

  /// Standard input is a terminal and this process is in its foreground: a
  /// run started in the background (`&`) leaves the terminal alone, since
  /// changing it from there would stop the process (SIGTTOU).
  public static var isAvailable: Bool {
    isatty(STDIN_FILENO) == 1 && tcgetpgrp(STDIN_FILENO) == getpgrp()
  }

  /// Reads keys one at a time, without echo, until ``stop()``. The terminal
  /// is given back at exit too, whatever ends the process normally.
  public func start() {
    guard Self.isAvailable, tcgetattr(STDIN_FILENO, &saved) == 0 else { return }
    var raw = saved
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
    TerminalRestore.remember(saved)
    guard tcsetattr(STDIN_FILENO, TCSANOW, &raw) == 0 else { return }
    changed = true
    started = true
    let thread = Thread { [weak self] in
      self?.run()
    }
    thread.name = "workbench-keys"
    thread.start()
  }

  /// Gives the terminal back as it was.
  public func stop() {
    lock.withLock { stopping = true }
    if started { _ = done.wait(timeout: .now() + 1) }
    if changed {
      tcsetattr(STDIN_FILENO, TCSANOW, &saved)
      changed = false
      TerminalRestore.forget()
    }
  }

  private func run() {
    defer { done.signal() }
    var byte: UInt8 = 0
    while !lock.withLock({ stopping }) {
      var poller = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 200) > 0 else { continue }
      guard read(STDIN_FILENO, &byte, 1) == 1 else { return }
      switch byte {
      case UInt8(ascii: " "), UInt8(ascii: "p"): controls.post(isPaused() ? .resume : .pause, from: "keyboard")
      case UInt8(ascii: "r"): controls.post(.restart, from: "keyboard")
      case UInt8(ascii: "b"): controls.post(.command("best_shot"), from: "keyboard")
      case UInt8(ascii: "q"): controls.post(.close, from: "keyboard")
      default: break
      }
    }
  }
}

/// The terminal's settings before the keys took it, put back by an `atexit`
/// handler when the process exits without ``TerminalKeys/stop()`` (an error
/// path that calls `exit`).
private enum TerminalRestore {
  nonisolated(unsafe) static var saved: termios?
  nonisolated(unsafe) static var registered = false

  static func remember(_ settings: termios) {
    saved = settings
    if !registered {
      registered = true
      atexit {
        guard var settings = TerminalRestore.saved else { return }
        tcsetattr(STDIN_FILENO, TCSANOW, &settings)
      }
    }
  }

  static func forget() { saved = nil }
}
