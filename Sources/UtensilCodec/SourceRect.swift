/// A rectangle of an image, in (possibly fractional) pixel coordinates.
struct SourceRect: Equatable {
    var x: Double
    var y: Double
    var width: Double
    var height: Double

    /// The whole of a `width` × `height` image.
    init(width: Int, height: Int) {
        self.init(x: 0, y: 0, width: Double(width), height: Double(height))
    }

    init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The same rectangle in an image scaled by `factor`.
    func scaled(by factor: Double) -> SourceRect {
        SourceRect(x: x * factor, y: y * factor, width: width * factor, height: height * factor)
    }
}

extension CenterSquare {
    /// The square as a rectangle.
    var rect: SourceRect { SourceRect(x: x, y: y, width: side, height: side) }
}
