import Foundation
import Synchronization
import UtensilCodec
import UtensilControlProtocol

/// The image repository's in-memory cache (as in the iPhone app): small RGB previews of
/// thumbnails (`ControlProtocol.previewEdge` square), most recently used kept, at most `capacity` of them.
final class ThumbnailCache: Sendable {
    let capacity: Int
    /// Each preview with the photo's `sha256` it was made from: a replaced photo misses.
    fileprivate let entries = Mutex<(order: [UUID], pixels: [UUID: (photo: String, pixels: [UInt8])])>(([], [:]))

    init(capacity: Int = 256) { self.capacity = capacity }

    /// The preview of a utensil's thumbnail, decoded once per photo (`sha256`) from the bytes
    /// `thumbnail` reads (the store's, from whatever storage), then served from memory.
    func preview(id: UUID, photo: String, thumbnail: () async -> [UInt8]?) async -> [UInt8]? {
        if let cached = entries.withLock({ state -> [UInt8]? in
            guard let entry = state.pixels[id], entry.photo == photo else { return nil }
            state.order.removeAll { $0 == id }
            state.order.append(id)
            return entry.pixels
        }) {
            return cached
        }
        guard let jpeg = await thumbnail() else { return nil }
        let maker = ThumbnailMaker(request: ThumbnailRequest(size: ControlProtocol.previewEdge, quality: 90))
        guard let pixels = try? jpeg.withUnsafeBytes({ raw in
            Result { () throws(ImageCodecError) in try maker.makeRGBPreview(from: raw) }
        }).get() else { return nil }
        entries.withLock { state in
            if state.pixels.updateValue((photo, pixels), forKey: id) != nil { state.order.removeAll { $0 == id } }
            state.order.append(id)
            while state.order.count > capacity { state.pixels[state.order.removeFirst()] = nil }
        }
        return pixels
    }

    func remove(_ id: UUID) {
        entries.withLock { state in
            state.pixels[id] = nil
            state.order.removeAll { $0 == id }
        }
    }
}

extension ThumbnailCache {
    /// Forgets every preview (thumbnails rewritten where the cache cannot tell which).
    func removeAll() {
        entries.withLock { $0 = ([], [:]) }
    }
}
