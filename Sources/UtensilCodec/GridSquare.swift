/// The larger square the gallery's grid shows on high-density screens: the thumbnail's crop
/// (the centre square of the photo as displayed) at ``ThumbnailRequest/squareSide``, made from
/// the preview's decode rather than from a decode of its own, so it costs a resample and an
/// encode, never a second decode.
extension DecodedPreview {
    /// The centre square of this preview (stored pixel order) scaled to `side` × `side`, RGB8.
    /// A JPEG's planes (here only for an odd `side`, which 4:2:0 planes cannot hold; an even
    /// one is made in them, ``YUV420Planes/centreSquare(side:)``) are read at half resolution
    /// when that still covers `side`, at full resolution otherwise. The reduction is at most 3 (a
    /// preview's short side to 540 pixels; a 12 MP photo's half-resolution square is 567), so
    /// it uses the area filter: two or three taps a pixel rather than Lanczos' seven to
    /// nineteen, a difference below what a 3× screen shows, where the resampling is most of
    /// the square's cost.
    func centreSquare(side: Int) -> [UInt8] {
        let region = CenterSquare(width: width, height: height)
        switch storage {
        case .rgb(let pixels):
            var resampler = ThumbnailResampler(
                sourceWidth: width, sourceHeight: height, region: region, size: side, areaOnly: true)
            let columns = resampler.sourceColumns
            pixels.withUnsafeBufferPointer { pixels in
                for y in 0..<height where resampler.needs(row: y) {
                    let start = (y * width + columns.lowerBound) * 3
                    resampler.add(row: UnsafeBufferPointer(rebasing: pixels[start..<(start + columns.count * 3)]), y: y)
                }
            }
            return resampler.finish()
        case .planes(let planes):
            return planes.withView { view in
                if min(view.halfWidth, view.halfHeight) >= side {
                    return Self.square(
                        side: side, width: view.halfWidth, height: view.halfHeight,
                        region: CenterSquare(x: region.x / 2, y: region.y / 2, side: region.side / 2)
                    ) { y, columns, row in view.halfResolutionRow(y, columns: columns, into: row) }
                }
                return Self.square(side: side, width: width, height: height, region: region) { y, columns, row in
                    view.fullResolutionRow(y, columns: columns, into: row)
                }
            }
        }
    }

    /// Resamples `region` of a `width` × `height` image whose rows `fill` converts to RGB8.
    private static func square(
        side: Int, width: Int, height: Int, region: CenterSquare,
        fill: (Int, Range<Int>, UnsafeMutableBufferPointer<UInt8>) -> Void
    ) -> [UInt8] {
        var resampler = ThumbnailResampler(
            sourceWidth: width, sourceHeight: height, region: region, size: side, areaOnly: true)
        let columns = resampler.sourceColumns
        var row = [UInt8](repeating: 0, count: columns.count * 3)
        row.withUnsafeMutableBufferPointer { row in
            for y in 0..<height where resampler.needs(row: y) {
                fill(y, columns, row)
                resampler.add(row: UnsafeBufferPointer(row), y: y)
            }
        }
        return resampler.finish()
    }
}

extension YUV420PlaneView {
    /// One row of the full-resolution image, RGB8, for `columns` (within `0..<2 * halfWidth`)
    /// only: each pixel its own luma with the chroma sample of its 2 × 2 block.
    func fullResolutionRow(_ row: Int, columns: Range<Int>, into rgb: UnsafeMutableBufferPointer<UInt8>) {
        precondition(
            (0..<(2 * halfHeight)).contains(row) && columns.lowerBound >= 0 && columns.upperBound <= 2 * halfWidth
                && rgb.count >= columns.count * 3)
        let lumaRow = row * lumaStride, blueRow = (row / 2) * blueStride, redRow = (row / 2) * redStride
        var out = 0
        for x in columns {
            YUV420PlaneView.convert(
                luma4: Int32(luma[lumaRow + x]) * 4, blue: Int32(blue[blueRow + x / 2]), red: Int32(red[redRow + x / 2]),
                into: rgb, at: out)
            out += 3
        }
    }
}

extension ThumbnailMaker {
    /// The grid square's edge: `request.squareSide` clamped to 0…4096 (0: none).
    var squareSide: Int { min(max(request.squareSide, 0), 4096) }

    /// The grid square of `square`'s preview, stood upright and encoded; nil when none was
    /// asked for or there is no preview to make it from. A JPEG's planes (an even side) give
    /// it in planes: resampled, turned and encoded without ever being RGB.
    func encodeGridSquare(of square: DecodedSquare) throws(ImageCodecError) -> [UInt8]? {
        let side = squareSide
        guard side > 0, let preview = square.preview else { return nil }
        if case .planes(let planes) = preview.storage, side % 2 == 0 {
            let upright = planes.centreSquare(side: side).oriented(square.orientation)
            return try JPEGEncoder.encode(planes: upright, quality: request.squareQuality, fastDCT: true)
        }
        let upright = square.orientation.apply(toSquare: preview.centreSquare(side: side), side: side)
        return try JPEGEncoder.encode(rgb: upright, width: side, height: side, quality: request.squareQuality, fastDCT: true)
    }
}
