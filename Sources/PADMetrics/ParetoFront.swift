/// The operating points worth considering when two error rates trade against
/// each other: those no other point beats on both.
public enum ParetoFront {
  /// The indices of the points that no other point dominates, where q dominates
  /// p when q.apcer ≤ p.apcer and q.bpcer ≤ p.bpcer with one of them strictly
  /// less. Equal points do not dominate each other, so ties are all kept. The
  /// indices come ordered by APCER, then BPCER, then index. Rates must not be NaN.
  ///
  /// Sorted by APCER, a point is on the front when its BPCER is the lowest of
  /// its APCER and lower than every BPCER at a smaller APCER: O(n log n).
  public static func indices(points: [(apcer: Double, bpcer: Double)]) -> [Int] {
    let order = points.indices.sorted {
      (points[$0].apcer, points[$0].bpcer, $0) < (points[$1].apcer, points[$1].bpcer, $1)
    }
    var front: [Int] = []
    var lowestBPCERBefore = Double.infinity
    var start = 0
    while start < order.count {
      // The run of points with the same APCER; its first has the run's lowest BPCER.
      let apcer = points[order[start]].apcer
      var end = start
      while end < order.count && points[order[end]].apcer == apcer { end += 1 }
      let lowest = points[order[start]].bpcer
      if lowest < lowestBPCERBefore {
        for position in start..<end where points[order[position]].bpcer == lowest { front.append(order[position]) }
        lowestBPCERBefore = lowest
      }
      start = end
    }
    return front
  }
}
