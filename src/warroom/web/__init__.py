"""The table-side web app: a thin FastAPI layer over :mod:`warroom.api`.

Nothing here does work at import time; :func:`warroom.web.app.create_app` builds the app.
"""
