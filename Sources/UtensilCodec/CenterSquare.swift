/// The centred square of an image, in (possibly fractional) pixel coordinates.
struct CenterSquare: Equatable {
    var x: Double
    var y: Double
    var side: Double

    /// The largest centred square of a `width` × `height` image.
    init(width: Int, height: Int) {
        let side = Double(min(width, height))
        self.init(x: (Double(width) - side) / 2, y: (Double(height) - side) / 2, side: side)
    }

    init(x: Double, y: Double, side: Double) {
        self.x = x
        self.y = y
        self.side = side
    }

    /// The same square in an image scaled by `factor` (a DCT-scaled or box-shrunk decode).
    func scaled(by factor: Double) -> CenterSquare {
        CenterSquare(x: x * factor, y: y * factor, side: side * factor)
    }
}
