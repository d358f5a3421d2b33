import CMediaPipe
import Testing

@Suite("MediaPipe C declarations")
struct MediaPipeDeclarationTests {
  @Test("the structs have the sizes and offsets of mediapipe 1.2.2's C API on this platform")
  func layouts() {
    #expect(wb_mp_check_layouts() == 1)
    #expect(MemoryLayout<wb_mp_face_landmarker_options>.size == 104)
    #expect(MemoryLayout<wb_mp_base_options>.size == 72)
    #expect(MemoryLayout<wb_mp_normalized_landmark>.stride == 40)
  }

  @Test("a file that is not a library: dlopen's reason, and nothing loaded")
  func notALibrary() {
    var api = wb_mp_api()
    var message = [CChar](repeating: 0, count: 512)
    #expect(wb_mp_load("/nonexistent/libmediapipe.so", &api, &message, message.count) == -1)
    let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    #expect(text.contains("/nonexistent/libmediapipe.so"))
    #expect(api.handle == nil && api.face_landmarker_create == nil)
  }
}
