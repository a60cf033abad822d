# The Debian package whose real photographs the codec's quality test reads.
PHOTO_PACKAGES := mate-backgrounds
