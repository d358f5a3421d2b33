import Imaging
import Testing

struct ImageHeaderTests {
  @Test func aPNGWithinTheLimitHasNoProblem() throws {
    // 640×480, 8-bit RGB: the signature and the IHDR chunk as every PNG starts.
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    png += [0, 0, 0x02, 0x80, 0, 0, 0x01, 0xE0, 8, 2, 0, 0, 0]
    let header = try #require(ImageHeader(png))
    #expect(header == ImageHeader(format: "PNG", width: 640, height: 480))
    #expect(header.sizeProblem == nil)
  }

  @Test func aDeclaredSizeAboveTheLimitIsAProblem() throws {
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    png += [0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20]
    let header = try #require(ImageHeader(png))
    #expect(header == ImageHeader(format: "PNG", width: 20000, height: 20000))
    #expect(header.sizeProblem?.contains("20000×20000") == true)
  }

  @Test func theLargestPNGSidesDoNotOverflow() throws {
    var png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8)
    png += [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
    let header = try #require(ImageHeader(png))
    #expect(header.pixelCount == .max)
    #expect(header.sizeProblem != nil)
  }

  @Test func readsBMPInfoHeadersTopDownAndOld() throws {
    // BITMAPINFOHEADER (40 bytes) of a top-down 8000×5000 picture: 40 MP, above the limit.
    var bmp: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [40, 0, 0, 0]
    bmp += [0x40, 0x1F, 0, 0] + Array(withUnsafeBytes(of: Int32(-5000).littleEndian, Array.init))
    let header = try #require(ImageHeader(bmp))
    #expect(header == ImageHeader(format: "BMP", width: 8000, height: 5000))
    #expect(header.sizeProblem != nil)
    // BITMAPCOREHEADER (12 bytes): 16-bit sizes.
    let core: [UInt8] = Array("BM".utf8) + [UInt8](repeating: 0, count: 12) + [12, 0, 0, 0, 0x80, 2, 0xE0, 1, 1, 0]
    #expect(ImageHeader(core) == ImageHeader(format: "BMP", width: 640, height: 480))
  }

  @Test func anythingElseOrAHeaderCutShortIsNil() {
    #expect(ImageHeader(Array("GIF89a".utf8)) == nil)
    #expect(ImageHeader([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0]) == nil)
    #expect(ImageHeader(Array("BM".utf8)) == nil)
  }
}
