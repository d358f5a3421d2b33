import Randomness

/// What the time faults move about: one item of an input, a captured frame
/// or a trace's measurements of one frame.
protocol TimelineItem {
  /// The item's number in the input.
  var index: Int64 { get }
  /// Seconds on the input's clock.
  var t: Double { get set }
  /// This item showing what `earlier` showed, at its own number and time
  /// (a stuck camera).
  func showing(_ earlier: Self) -> Self
}

/// The scenario's time faults (drop, freeze, jitter, duplicate, reorder),
/// written once for frames and for traces: for each input, what to deliver
/// (nothing, the input, or more) and at which times.
///
/// The random draws come from one seeded stream in a fixed order: for each
/// input, one for each drop rate until a drop fault drops it, then, if the
/// input is kept, one for each jitter, all in the order the faults are listed.
final class FaultTimeline<Item: TimelineItem> {
  private let faults: [Fault]
  private var random: SeededRandom
  /// The latest time delivered: jitter keeps times increasing past it.
  private var lastT = -Double.infinity
  /// The last input before a freeze, whose picture the freeze shows.
  private var frozen: Item?
  /// The input a reorder holds back until the next one is delivered, and
  /// how many duplicates of it are due.
  private var held: (item: Item, copies: Int)?
  /// Faults that happen once (duplicate, reorder) and have.
  private var fired = Set<Int>()

  init(_ faults: [Fault], seed: UInt64) {
    self.faults = faults
    random = SeededRandom(state: seed)
  }

  /// What `input` becomes when the freeze is the only fault of its picture.
  func items(for input: Item) -> [Item] {
    items(for: input) { _ = freeze(&$0) }
  }

  /// What `input` becomes. `picture` applies a kept input's own faults to
  /// its picture, before its time moves; it calls ``freeze(_:)`` where the
  /// frozen picture goes among them.
  func items(for input: Item, picture: (inout Item) -> Void) -> [Item] {
    guard keeps(input) else { return [] }
    var item = input
    picture(&item)
    jitter(&item)
    return deliver(item)
  }

  /// What a reorder still holds back when the input ends, at its own time.
  func remaining() -> [Item] {
    guard let (item, copies) = held else { return [] }
    held = nil
    lastT = max(lastT, item.t)
    return Array(repeating: item, count: 1 + copies)
  }

  /// Shows the last picture before the freeze on an input inside its
  /// window (true), or remembers an input outside it. An input inside the
  /// window before any other keeps its own picture.
  func freeze(_ item: inout Item) -> Bool {
    let stuck = faults.contains { fault in
      if case .freeze(let from, let to) = fault { return item.t >= from && item.t <= to }
      return false
    }
    guard stuck else {
      frozen = item
      return false
    }
    guard let frozen else { return false }
    item = item.showing(frozen)
    return true
  }

  /// Whether the drop faults keep the input: they are asked in order, and
  /// the first that drops it ends the asking (later drop rates draw nothing).
  private func keeps(_ item: Item) -> Bool {
    for fault in faults {
      switch fault {
      case .dropRate(let rate): if random.nextDouble() < rate { return false }
      case .dropFrames(let list): if list.contains(item.index) { return false }
      default: break
      }
    }
    return true
  }

  private func jitter(_ item: inout Item) {
    for fault in faults {
      if case .jitter(let amount) = fault {
        item.t = max(lastT + 1e-6, item.t + (random.nextDouble() * 2 - 1) * amount)
      }
    }
  }

  /// The input with its duplicates; or, at a reorder, nothing yet: the
  /// next input delivered comes first, each keeping the other's time.
  private func deliver(_ item: Item) -> [Item] {
    if let (earlier, copies) = held {
      held = nil
      var first = item
      var second = earlier
      (first.t, second.t) = (earlier.t, item.t)
      lastT = max(lastT, second.t)
      return [first] + Array(repeating: second, count: 1 + copies)
    }
    var copies = 0
    for (number, fault) in faults.enumerated() {
      switch fault {
      case .reorder(let at) where item.t >= at && fired.insert(number).inserted:
        held = (item, copies)
        return []
      case .duplicate(let at, let count) where item.t >= at && fired.insert(number).inserted:
        copies += count
      default: break
      }
    }
    lastT = max(lastT, item.t)
    return Array(repeating: item, count: 1 + copies)
  }
}
