import Diagnostics
import Flows
import JSONCore

/// The live controls a watched run takes between frames (the preview, the
/// terminal's keys, the file watcher): each is one event and one reply.
extension RunSession {
  /// Takes every control that has arrived, in order, each with its event.
  func takeControls(_ controls: ControlMailbox) {
    while let request = controls.take() {
      let reply = take(request.control, source: request.source)
      request.reply(reply)
      onControl?(request.control, reply)
    }
  }

  func take(_ control: LiveControl, source: String) -> ControlReply {
    let sender = JSONObject([("source", .string(source))])
    guard state == .running || state == .paused || state == .ended, let runner else {
      return ControlReply(.refused, "the run is over")
    }
    switch control {
    case .pause:
      guard state == .running else {
        return ControlReply(.done, state == .paused ? "already paused" : "the flow has ended")
      }
      pause(sender)
      return ControlReply(.done, "paused")
    case .resume:
      guard state == .paused else { return ControlReply(.done, "not paused") }
      resume(sender)
      guard !pendingAssignments.isEmpty else { return ControlReply(.done, "resumed") }
      return startOver(action: "restart", sender, done: "resumed; the flow started over")
    case .restart:
      return startOver(action: "restart", sender, done: "started over")
    case .close:
      // After the flow's result no event follows it: the result stays the
      // last event, and names the outputs once close completes them.
      if state != .ended { runner.control("close", sender) }
      closeRequested = true
      end(.closed)
      return ControlReply(.done, "closed")
    case .command(let name):
      guard state != .ended, let flow else { return ControlReply(.refused, "the flow has ended: restart it first") }
      flow.send(command: name)
      var fields = sender
      fields["name"] = .string(name)
      runner.control("command", fields)
      return ControlReply(.done, "sent \(name)")
    case .settings(let assignments):
      guard state == .paused else {
        return ControlReply(.refused, "settings change only while paused: pause first (POST /api/pause)")
      }
      // Their errors name where they came from, not --set.
      let origin = source == "page" ? "the preview page" : "POST /api/settings"
      let sent = assignments.map { (origin: origin, text: $0) }
      var trial = flowOptions
      trial.sentAssignments += pendingAssignments + sent
      do {
        _ = try FlowLoader.load(trial, logger: logger)
      } catch {
        return ControlReply(.invalid, Self.text(of: error))
      }
      pendingAssignments += sent
      var fields = sender
      fields["settings"] = .array(assignments.map { .string($0) })
      runner.control("settings", fields)
      return ControlReply(.done, "applied on resume: " + assignments.joined(separator: ", "))
    case .reload(let changed):
      var fields = sender
      fields["changed"] = .array(changed.map { .string($0) })
      let reply = startOver(action: "reload", fields, done: "reloaded")
      if reply.outcome != .done {
        fields["error"] = .string(reply.message)
        if let location = FlowDescription.location(reply.message.prefix { $0 != " " } + " ") {
          fields["file"] = .string(location.file)
          if let line = location.line { fields["line"] = .integer(Int64(line)) }
        }
        runner.control("reload_failed", fields)
      }
      return reply
    }
  }

  /// Loads the flow again, with the settings sent while paused (they apply
  /// from now on), and starts it over; a flow that does not load leaves the
  /// run as it was, the settings still waiting.
  func startOver(action: String, _ fields: JSONObject, done: String) -> ControlReply {
    var changed = flowOptions
    changed.sentAssignments += pendingAssignments
    var event = fields
    if !pendingAssignments.isEmpty { event["settings"] = .array(pendingAssignments.map { .string($0.text) }) }
    do {
      try restart(with: changed, action: action, event)
    } catch {
      return ControlReply(.invalid, Self.text(of: error))
    }
    let applied = pendingAssignments
    flowOptions = changed
    pendingAssignments = []
    return ControlReply(
      .done, applied.isEmpty ? done : done + " with " + applied.map(\.text).joined(separator: ", "))
  }

  /// An error as `--set` or a run prints it: each problem at its place, with its advice.
  static func text(of error: WorkbenchError) -> String {
    let lines = error.diagnostics.map { diagnostic in
      diagnostic.locatedMessage + (diagnostic.help.map { " (\($0))" } ?? "")
    }
    return lines.isEmpty ? "\(error)" : lines.joined(separator: "\n")
  }
}

/// The flow's clock while a live run is paused: the time that passed is
/// taken out, so that the flow's timers stand still.
struct PauseClock {
  private var offset = 0.0
  private var rebase = false
  private var last: Double?
  private var interval = 0.0

  mutating func resumeLive() { rebase = true }

  mutating func flowTime(_ t: Double) -> Double {
    if rebase, let last {
      offset = t - (last + interval)
      rebase = false
    }
    let flowT = offset == 0 ? t : t - offset
    if let last { interval = flowT - last }
    last = flowT
    return flowT
  }
}
