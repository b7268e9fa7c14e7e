# Man pages: filled in by the man page work.
