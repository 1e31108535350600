"""Static files in production: hashed names, compressed, and ES modules that import each other by their
hashed names too (the room page's static/js/room/), so a new release never mixes old and new modules."""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class StaticStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
