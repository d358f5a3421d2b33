import Session
import Testing

struct ControlMailboxTests {
  @Test func aFullMailboxRefusesInsteadOfGrowing() {
    let mailbox = ControlMailbox(capacity: 3)
    #expect(mailbox.post(.pause, from: "api"))
    #expect(mailbox.post(.resume, from: "api"))
    #expect(mailbox.post(.command("best_shot"), from: "keyboard"))
    #expect(!mailbox.post(.close, from: "api"), "a fourth control waits beyond the bound")
  }

  @Test func everyControlNamesItsAction() {
    let actions = [
      LiveControl.pause, .resume, .restart, .close, .command("best_shot"), .settings([]), .reload(changed: []),
    ]
    .map(\.action)
    #expect(actions == ["pause", "resume", "restart", "close", "command", "settings", "reload"])
  }
}
