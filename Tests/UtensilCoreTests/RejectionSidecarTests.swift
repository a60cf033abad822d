import Foundation
import Testing
import UtensilCore

@Suite("Rejection sidecars")
struct RejectionSidecarTests {
    @Test func contractReasonsAreExactlyTheContractList() {
        let contract = [
            "empty-name", "name-too-long", "name-has-line-break", "name-has-control-character", "name-not-utf8",
            "unsupported-type", "not-a-regular-file", "unreadable", "too-large", "too-many-pixels", "corrupt-image",
            "extension-mismatch", "duplicate-name", "duplicate-content", "never-settled", "decoder-crash", "invalid-category",
            "near-duplicate",
        ]
        #expect(RejectionReason.allCases.map(\.rawValue) == contract)
    }

    @Test func sidecarHasTheContractFields() throws {
        let date = Date(timeIntervalSince1970: 1_795_342_502.123)
        let sidecar = RejectionSidecar(
            file: "Spoon!!.jpg", reason: .corruptImage, message: "Broken.", rejectedAt: date, bytes: 48213,
            rejectedAs: "Spoon!!.jpg", inboxPath: "Spoon!!.jpg")
        let object = try JSONSerialization.jsonObject(with: sidecar.encoded()) as? [String: Any]
        #expect(object?["file"] as? String == "Spoon!!.jpg")
        #expect(object?["reason"] as? String == "corrupt-image")
        #expect(object?["message"] as? String == "Broken.")
        #expect(object?["bytes"] as? Int == 48213)
        #expect(object?["rejectedAt"] as? String == "2026-11-22T10:15:02.123Z")
    }
}
