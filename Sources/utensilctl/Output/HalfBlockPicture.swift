import UtensilControlProtocol

/// Draws an RGB picture in a terminal with 24-bit colour: one `▀` per two pixels, its
/// foreground the upper pixel and its background the lower one.
enum HalfBlockPicture {
    static func render(_ picture: RGBPreview, indent: String = "") -> [String] {
        stride(from: 0, to: picture.height, by: 2).map { top in
            var line = indent
            for x in 0..<picture.width {
                let upper = picture.pixel(x: x, y: top)
                line += "\u{1B}[38;2;\(upper.red);\(upper.green);\(upper.blue)m"
                if top + 1 < picture.height {
                    let lower = picture.pixel(x: x, y: top + 1)
                    line += "\u{1B}[48;2;\(lower.red);\(lower.green);\(lower.blue)m"
                } else {
                    line += "\u{1B}[49m"
                }
                line += "▀"
            }
            return line + "\u{1B}[0m"
        }
    }
}
