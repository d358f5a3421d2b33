import Imaging
import Testing

@Suite struct RegionOfInterestTests {
  @Test func clampingKeepsThePartInside() {
    let region = RegionOfInterest(x: -10, y: 20, width: 50, height: 400)
    #expect(region.clamped(toWidth: 640, height: 360) == RegionOfInterest(x: 0, y: 20, width: 40, height: 340))
    let inside = RegionOfInterest(x: 5, y: 6, width: 7, height: 8)
    #expect(inside.clamped(toWidth: 640, height: 360) == inside)
    #expect(
      inside.clamped(to: ImageBuffer(width: 10, height: 10, format: .gray8))
        == RegionOfInterest(x: 5, y: 6, width: 5, height: 4))
  }

  @Test func regionsOutsideBecomeEmptyAtTheNearestEdge() {
    #expect(
      RegionOfInterest(x: 700, y: 10, width: 5, height: 5).clamped(toWidth: 640, height: 360)
        == RegionOfInterest(x: 640, y: 10, width: 0, height: 5))
    #expect(
      RegionOfInterest(x: -20, y: -20, width: 5, height: 5).clamped(toWidth: 640, height: 360)
        == RegionOfInterest(x: 0, y: 0, width: 0, height: 0))
    #expect(RegionOfInterest(x: 1, y: 1, width: -4, height: 2).clamped(toWidth: 640, height: 360).isEmpty)
    #expect(RegionOfInterest(x: 1, y: 1, width: 4, height: 2).clamped(toWidth: -3, height: 360).isEmpty)
  }

  @Test func extremeValuesDoNotOverflow() {
    let huge = RegionOfInterest(x: Int.max, y: Int.min, width: Int.max, height: Int.max)
    #expect(huge.clamped(toWidth: 640, height: 360) == RegionOfInterest(x: 640, y: 0, width: 0, height: 0))
    let all = RegionOfInterest(x: -1, y: -1, width: Int.max, height: Int.max)
    #expect(all.clamped(toWidth: 640, height: 360) == RegionOfInterest(x: 0, y: 0, width: 640, height: 360))
    #expect(all.contains(x: 1_000_000, y: 5))
    #expect(!huge.contains(x: 0, y: 0))
    #expect(huge.area == Int.max)
  }

  @Test func containsAndArea() {
    let region = RegionOfInterest(x: 2, y: 3, width: 4, height: 5)
    #expect(region.area == 20)
    #expect(region.contains(x: 2, y: 3) && region.contains(x: 5, y: 7))
    #expect(!region.contains(x: 6, y: 3) && !region.contains(x: 2, y: 8) && !region.contains(x: 1, y: 4))
    #expect(!RegionOfInterest(x: 0, y: 0, width: 0, height: 5).contains(x: 0, y: 0))
  }
}
