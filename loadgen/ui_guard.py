"""What a request to Locust's web UI may change (docs/reliability.md, "What a post to the Locust UI
may set").

Locust (2.x) applies every field of a POST /swarm to environment.parsed_options, the options its
page does not show included (include_in_web_ui=False: --step-log, --zipkin-url, and every option
of Locust's own, e.g. --json-file, written when it quits), and POST /user sets any attribute of a
user class. It has no defence against cross-site requests, and its CORS headers admit any origin:
a web page the user opens could post to the UI on loopback. Two rules, checked before Locust's
own handlers (a Flask before_request on web_ui.app, so also for routes the testbed adds):

1. Cross-origin requests are refused with 403, as Go's net/http CrossOriginProtection refuses
   them: every method but GET, HEAD and OPTIONS, when
     - Sec-Fetch-Site is present and neither "same-origin" nor "none" (the browser says so), else
     - Origin is present and does not name the host the request was sent to (its Host), else
     - Referer is present and does not, else
     - a Sec-Fetch-Mode/-Dest/-User header says a browser sent it without naming an origin.
   A request with none of these headers is a program's (curl, the testbed's tests, a health
   check): a browser sends Origin with every POST (Fetch standard), so no web page can send one,
   and a program on this machine reaches Locust's loopback port whatever it sends. Through
   HAProxy's locust_ui entry the Host is HAProxy's address, the origin the browser names there:
   HAProxy forwards Host as it came (and asks for UI_PASSWORD first when it is set).
2. A post sets only what the page shows: POST /swarm Locust's own form fields (FORM_FIELDS) and
   the custom parameters the page lists (options with include_in_web_ui), POST /user the fields
   of the page's user editor (USER_FIELDS). Any other field refuses the whole request with 400
   naming it, before anything is applied: what was fixed at start stays as started.
"""
from __future__ import annotations

import logging
from urllib.parse import urlsplit

from locust import events

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
SAME_SITE_VALUES = frozenset({"same-origin", "none"})       # Sec-Fetch-Site of a request the UI may take
BROWSER_HEADERS = ("Sec-Fetch-Mode", "Sec-Fetch-Dest", "Sec-Fetch-User")
# the fields of Locust's start form (its page turns userCount into user_count, etc.)
FORM_FIELDS = frozenset({"user_count", "spawn_rate", "host", "run_time", "profile", "user_classes", "shape_class"})
# the fields of its user editor (the class picker): a class's host, weight, fixed_count, tasks
USER_FIELDS = frozenset({"user_class_name", "host", "weight", "fixed_count", "tasks"})
LOGGED_AT = (1, 10, 100, 1000, 10000)     # the refusals that leave a log line: a page may post in a loop


def _authority(url: str) -> str | None:
    """host[:port] of an http(s) URL, lower case; None for anything else ("null" included)."""
    try:
        parts = urlsplit(url.strip())
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    return parts.netloc.rpartition("@")[2].lower()


def cross_origin(method: str, host: str, headers) -> str | None:
    """Why rule 1 refuses this request, or None when it may go on. host: its Host header;
    headers: anything with .get(name) (Flask's request.headers)."""
    if method.upper() in SAFE_METHODS:
        return None
    site = headers.get("Sec-Fetch-Site")
    if site is not None:
        return None if site.strip().lower() in SAME_SITE_VALUES else f"Sec-Fetch-Site: {site}"
    host = (host or "").strip().lower()
    for name in ("Origin", "Referer"):
        value = headers.get(name)
        if value is not None:
            return None if host and _authority(value) == host else f"{name} {value!r} is not this UI's ({host})"
    if any(headers.get(h) is not None for h in BROWSER_HEADERS):
        return "a browser request that names no origin"
    return None


def swarm_refusals(fields, shown) -> list[str]:
    """The fields of a POST /swarm that rule 2 refuses; shown: the custom parameters the page lists."""
    return sorted(set(fields) - FORM_FIELDS - set(shown))


def user_refusals(body) -> list[str]:
    """The fields of a POST /user (a JSON object) that rule 2 refuses."""
    if not isinstance(body, dict):
        return ["(a body that is not a JSON object)"]
    return sorted(str(k) for k in set(body) - USER_FIELDS)


@events.init.add_listener
def _guard(environment, web_ui=None, **_kwargs):
    if web_ui is None:                       # workers, --headless
        return
    from flask import jsonify, request

    args = getattr(web_ui, "template_args", None)
    extra = args.get("extra_options") if isinstance(args, dict) else None
    if not isinstance(extra, dict):
        logging.warning("loadgen: this Locust's web UI lists no custom parameters here: a post may set "
                        "only Locust's own form fields")
        extra = {}
    shown = frozenset(extra)
    refused = {"count": 0}

    def refuse(status: int, message: str):
        refused["count"] += 1
        if refused["count"] in LOGGED_AT:
            logging.warning(f"loadgen: web UI: {request.method} {request.path} refused ({status}): {message} "
                            f"[{refused['count']} refused so far]")
        return jsonify({"success": False, "message": message}), status

    @web_ui.app.before_request
    def _check():
        why = cross_origin(request.method, request.host, request.headers)
        if why:
            return refuse(403, f"refused, a cross-origin request: {why}")
        if request.endpoint == "locust.swarm":
            bad = swarm_refusals(request.form.keys(), shown)
        elif request.endpoint == "locust.update_user":
            bad = user_refusals(request.get_json(force=True, silent=True))
        else:
            return None
        if bad:
            return refuse(400, "the web UI cannot set " + ", ".join(bad)
                          + ": only the fields its page shows; the other options stay as Locust started")
        return None
