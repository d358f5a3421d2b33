import Diagnostics
import Flows
import Foundation
import Interrupts
import Session
import Settings
import Synchronization

/// How a live run is watched: `run --preview`, `--watch`, the keys.
public struct LiveOptions: Sendable {
  /// Where the preview page listens; nil for none.
  public var preview: PreviewAddress?
  /// A preview beyond loopback was asked for by name (`--preview-public`).
  public var previewPublic = false
  /// Reload the flow when its files change.
  public var watch = false
  /// The most frames a second the page gets.
  public var previewFramesPerSecond = PreviewPublisher.defaultFramesPerSecond

  public init() {}

  public var isLive: Bool { preview != nil || watch }
}

/// A run someone watches and steers while it goes: the preview page and its
/// HTTP API, the file watcher, the terminal's keys, all feeding one
/// mailbox that the session's frame loop empties between frames. The run
/// stays open after its flow ends, for a restart or a reload, until it is
/// closed (POST /api/close, q) or interrupted (Ctrl-C).
public final class LiveRun {
  private let session: RunSession
  private let options: LiveOptions
  private let say: (String) -> Void
  private let controls = ControlMailbox()
  private let paused = PausedFlag()

  /// `say` prints a line for the person at the terminal.
  public init(session: RunSession, options: LiveOptions, say: @escaping (String) -> Void) {
    self.session = session
    self.options = options
    self.say = say
  }

  public func run() throws(WorkbenchError) -> RunOutcome {
    session.controls = controls
    var server: PreviewServer?
    if let address = options.preview {
      guard address.isLoopback || options.previewPublic else {
        throw WorkbenchError(
          .usage, "--preview \(address.host):\(address.port) can be reached from other machines",
          help:
            "add --preview-public if that is what you want (anyone who reaches it sees the camera and can steer the run), or listen on 127.0.0.1"
        )
      }
      let publisher = PreviewPublisher(maximumFramesPerSecond: options.previewFramesPerSecond)
      publisher.attach(schema: session.measurementSchema)
      publisher.overlays = { [unowned session] in session.currentOverlays() }
      let earlier = session.onFlowLoaded
      session.onFlowLoaded = { flow, features in
        publisher.flowLoaded(
          name: flow.description.name, file: flow.displayPath, steps: flow.description.steps.map(\.name))
        earlier?(flow, features)
      }
      session.addLiveSink(publisher)
      session.addOutput(publisher)
      let started = PreviewServer(address: address, publisher: publisher, controls: controls)
      let port = try started.start()
      server = started
      let host = address.host.contains(":") ? "[\(address.host)]" : address.host
      say("preview: http://\(host):\(port)/")
      if !address.isLoopback {
        say(
          "workbench: warning: the preview listens on \(address.host), beyond this machine: anyone who reaches it sees the frames and can steer the run"
        )
      }
    }
    var watcher: FlowWatcher?
    if options.watch {
      let started = FlowWatcher(controls: controls)
      let flowOptions = session.options.flow
      let earlier = session.onFlowLoaded
      let say = self.say
      // Said once the flow has loaded: a flow that does not load at the start ends the run.
      session.onFlowLoaded = { flow, features in
        started.watch(FlowWatcher.files(of: flow, options: flowOptions))
        say("watching \(WorkbenchHome.display(flowOptions.flowPath)) and the files it loads: a change reloads the flow")
        earlier?(flow, features)
      }
      started.start()
      watcher = started
    }
    let watching = watcher
    session.onControl = { [session, say, paused] control, reply in
      paused.set(session.state == .paused)
      switch control {
      case .reload(let changed):
        if reply.outcome == .done {
          say("reloaded (\(changed.joined(separator: ", ")) changed)")
        } else {
          say("the changed flow does not load; the previous one goes on:\n\(reply.message)")
        }
        watching?.watch(FlowWatcher.files(of: session.flow, options: session.options.flow))
      default:
        say("\(control.action): \(reply.message)")
        if reply.outcome == .done, control == .restart || control == .resume {
          watching?.watch(FlowWatcher.files(of: session.flow, options: session.options.flow))
        }
      }
    }
    var keys: TerminalKeys?
    // Ctrl-C must end the run through the session, not kill it with the terminal still taken.
    Interrupts.install()
    if TerminalKeys.isAvailable {
      let started = TerminalKeys(controls: controls, isPaused: { [paused] in paused.value })
      started.start()
      keys = started
      say(TerminalKeys.help)
    }
    let outcome = session.runLive()
    keys?.stop()
    watcher?.stop()
    server?.stop()
    return outcome
  }
}

private final class PausedFlag: Sendable {
  private let stored = Atomic<Bool>(false)
  func set(_ value: Bool) { stored.store(value, ordering: .relaxed) }
  var value: Bool { stored.load(ordering: .relaxed) }
}
