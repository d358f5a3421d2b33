import LivenessService
import Testing

@Suite("LUNA PLATFORM's liveness answer")
struct LivenessAnswerTests {
  func parse(_ text: String) throws(LivenessServiceError) -> LivenessAnswer {
    try LivenessAnswer.parse(Array(text.utf8))
  }

  @Test("probability, quality and a numeric prediction")
  func numeric() throws {
    let answer = try parse(
      #"{"images":[{"filename":"a.jpg","status":1,"liveness":{"prediction":1,"estimations":{"probability":0.93,"quality":0.71}},"error":{"error_id":0,"desc":"Success"}}]}"#
    )
    #expect(answer == LivenessAnswer(probability: 0.93, quality: 0.71, prediction: .real))
  }

  @Test("a prediction in words, and no quality")
  func words() throws {
    let answer = try parse(#"{"images":[{"liveness":{"prediction":"spoof","estimations":{"probability":0.04}}}]}"#)
    #expect(answer == LivenessAnswer(probability: 0.04, quality: nil, prediction: .spoof))
    let unknown = try parse(#"{"images":[{"liveness":{"prediction":2,"estimations":{"probability":0.5}}}]}"#)
    #expect(unknown.prediction == .unknown)
  }

  @Test(
    "what is not the answer's shape is a bad answer, naming what is missing",
    arguments: [
      ("<html>busy</html>", "not JSON"),
      (#"{"images":[]}"#, "no images[0]"),
      (#"{"images":[{"status":1}]}"#, "has no liveness"),
      (#"{"images":[{"liveness":{"prediction":1}}]}"#, "probability is missing"),
      (#"{"images":[{"liveness":{"estimations":{"probability":1.7}}}]}"#, "from 0 to 1"),
      (#"{"images":[{"liveness":{"estimations":{"probability":"high"}}}]}"#, "probability is missing"),
    ])
  func bad(text: String, says: String) {
    #expect {
      _ = try parse(text)
    } throws: { error in
      guard let error = error as? LivenessServiceError else { return false }
      return error.kind == .badAnswer && error.message.contains(says)
    }
  }

  @Test("an image the service could not estimate is its refusal, with its detail")
  func refused() {
    #expect {
      _ = try parse(
        #"{"images":[{"status":0,"error":{"error_id":22001,"desc":"Bad image","detail":"face not found"}}]}"#)
    } throws: { error in
      guard let error = error as? LivenessServiceError else { return false }
      return error.kind == .refused && error.message.contains("22001") && error.message.contains("face not found")
    }
  }
}
