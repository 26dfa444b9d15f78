"""The web view: a Starlette app with Jinja2 templates on the farm's Redis.

Read-only pages: campaigns (live), one campaign (plots, jobs), bugs (groups and buckets,
filterable), one bucket (failure, swimlanes, scenario, replay command, artifact downloads),
workers. State-changing routes (cancel, group split/merge) are POST only and need the token
the server was started with (``fuzzfarm web --token``): a cookie set by ``/login`` (HttpOnly,
SameSite=Strict) or the ``X-Fuzzfarm-Token`` header. A server started without a token has
none of them enabled. The Redis URL shown anywhere is masked; error text is masked too.
"""

from __future__ import annotations

import hmac
import json
import time
from urllib.parse import quote, urlsplit

import jinja2
import redis as redis_py
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from fuzzfarm.farm import store as S
from fuzzfarm import views
from fuzzfarm.farm import redis_url

from . import actions, data, plots, swimlane

COOKIE = "fuzzfarm_token"
HEADER = "x-fuzzfarm-token"
REFRESH_MS = 2000


def _when(ts) -> str:
    if ts in (None, ""):
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(float(ts))) + "Z"


def _num(v) -> str:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return "-" if v in (None, "") else str(v)
    return f"{int(f):,}" if f == int(f) else f"{f:,.1f}"


def _env() -> jinja2.Environment:
    env = jinja2.Environment(loader=jinja2.PackageLoader("fuzzfarm.web", "templates"),
                             autoescape=jinja2.select_autoescape(("html",)),
                             trim_blocks=True, lstrip_blocks=True)
    env.filters.update(when=_when, num=_num, urlq=lambda s: quote(str(s), safe=""))
    return env


class _Site:
    """The pages and actions of one web view: its Store, its Redis URL (shown masked) and the token
    that enables the state-changing routes (None: read-only)."""

    def __init__(self, url: str, token: str | None, st: S.Store):
        self.url, self.token, self.st = url, token, st
        self.env = _env()
        self.masked = redis_url.mask(url)

    def page(self, request: Request, name: str, status: int = 200, **ctx) -> HTMLResponse:
        ctx.update(request=request, redis=self.masked, can_change=self.token is not None, authed=self._authed(request),
                   refresh_ms=REFRESH_MS, nav=name.split(".")[0])
        html = self.env.get_template(name).render(**ctx)
        # whatever a harness or a message carried, the Redis password never leaves in a page
        return HTMLResponse(redis_url.mask_text(html, self.url), status_code=status)

    def _authed(self, request: Request) -> bool:
        if self.token is None:
            return False
        given = request.headers.get(HEADER) or request.cookies.get(COOKIE) or ""
        return hmac.compare_digest(given.encode(), self.token.encode())

    def require_token(self, request: Request) -> None:
        if self.token is None:
            raise HTTPException(403, "this web view is read-only: start `fuzzfarm web --token T` to cancel, "
                                     "split or merge from the page")
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host"):
            raise HTTPException(403, "cross-origin request refused")
        if not self._authed(request):
            raise HTTPException(403, "missing or wrong token: log in at /login")

    # ---- pages -----------------------------------------------------------------------------
    async def index(self, request: Request):
        return RedirectResponse("/campaigns", status_code=303)

    def campaigns(self, request: Request, template: str = "campaigns.html"):
        return self.page(request, template, rows=views.campaigns(self.st)[::-1])  # newest first

    def campaign(self, request: Request, template: str = "campaign.html"):
        cid = request.path_params["cid"]
        c = views.campaign(self.st, cid)
        if c is None:
            raise HTTPException(404, f"no campaign {cid}")
        return self.page(request, template, c=c, **self._campaign_parts(cid, c))

    def _campaign_parts(self, cid: str, c: dict) -> dict:
        ser = data.series(self.st, cid)
        span = max(float(c["duration_s"]), max((t for t, _ in ser["execs"] + ser["buckets"]), default=0))
        charts = [plots.line_chart(ser["execs"], title="execs (all jobs)", css="execs", x_max=span),
                  plots.line_chart(ser["cov"], title="coverage (edges, best job)", css="cov", x_max=span),
                  plots.line_chart(ser["buckets"], title="buckets found", css="buckets", step=True, x_max=span)]
        return {"charts": charts, "jobs": views.jobs(self.st, cid), "buckets": views.bucket_rows(self.st, cid)}

    def bugs(self, request: Request):
        q = request.query_params
        f = {"harness": q.get("harness", ""), "kind": q.get("kind", ""), "verdict_": q.get("verdict", "")}
        rows = views.bucket_rows(self.st)[::-1]  # newest first, in their groups; the largest group first
        groups = sorted(views.groups(data.filter_rows(rows, **f)), key=lambda g: (-g["count"], g["id"]))
        return self.page(request, "bugs.html", groups=groups,
                    choices=data.filter_choices(rows),
                    f={"harness": f["harness"], "kind": f["kind"], "verdict": f["verdict_"]})

    def bucket(self, request: Request):
        bid = request.path_params["bid"]
        b = views.bucket(self.st, bid)
        if b is None:
            raise HTTPException(404, f"no bucket {bid}")
        files = self.st.artifact(bid)  # each file checked against its stored sha256, as `fuzzfarm download`
        tj, source = data.trace(self.st, bid, files)
        svg, model = None, None
        if tj:
            model = swimlane.build(tj)
            svg = swimlane.render(model)
        manifest = json.loads(files["MANIFEST.json"])["files"] if files and "MANIFEST.json" in files else {}
        listing = [{"name": n, "size": len(d), "sha256": S.sha256(d), "manifest": manifest.get(n)}
                   for n, d in sorted((files or {}).items())]
        text = lambda n: files[n].decode("utf-8", "replace") if files and n in files else None  # noqa: E731
        # the regression test `fuzzfarm download` writes beside the artifact, as it writes it
        regression = [(n, t.decode()) for n, t in views.regression_test(self.st.bucket(bid)).items()][0] if files else None
        repro = json.loads(files["repro.json"]) if files and "repro.json" in files else {}
        return self.page(request, "bucket.html", b=b, files=listing, failure=text("failure.txt"), trace_text=text("trace.txt"),
                    svg=svg, model=model, trace_source=source, scenario=(tj or {}).get("scenario"),
                    repro=repro, regression=regression)

    def bucket_file(self, request: Request):
        bid, name = request.path_params["bid"], request.path_params["name"]
        files = views.artifact_files(self.st, bid)  # the bytes `fuzzfarm download` writes
        if not files or name not in files:
            raise HTTPException(404, f"bucket {bid} has no file {name}")
        body = files[name]
        return Response(body, media_type="application/octet-stream",
                        headers={"Content-Disposition": f'attachment; filename="{quote(name)}"',
                                 "X-Content-SHA256": S.sha256(body), "Cache-Control": "no-store"})

    def workers(self, request: Request):
        return self.page(request, "workers.html", w=data.workers(self.url))

    # ---- token and state-changing routes ------------------------------------------------------
    def login_form(self, request: Request):
        return self.page(request, "login.html", error="")

    async def login(self, request: Request):
        if self.token is None:
            raise HTTPException(403, "this web view has no token: start `fuzzfarm web --token T`")
        form = await request.form()
        given = str(form.get("token") or "")
        if not hmac.compare_digest(given.encode(), self.token.encode()):
            return self.page(request, "login.html", status=403, error="wrong token")
        resp = RedirectResponse("/campaigns", status_code=303)
        resp.set_cookie(COOKIE, self.token, httponly=True, samesite="strict", path="/")
        return resp

    async def logout(self, request: Request):
        resp = RedirectResponse("/campaigns", status_code=303)
        resp.delete_cookie(COOKIE, path="/")
        return resp

    def _done(self, request: Request, message: str, back: str, status: int = 200):
        return self.page(request, "done.html", status=status, message=message, back=back)

    async def cancel(self, request: Request):
        self.require_token(request)
        cid = request.path_params["cid"]
        if self.st.campaign(cid) is None:
            raise HTTPException(404, f"no campaign {cid}")
        try:
            res = actions.cancel(self.st, cid)
        except actions.ActionError as e:  # already settled: nothing changed
            return self._done(request, str(e), f"/campaign/{quote(cid)}", 409)
        return self._done(request, f"campaign {cid}: cancel requested ({res})", f"/campaign/{quote(cid)}")

    async def split(self, request: Request):
        self.require_token(request)
        form = await request.form()
        group, bid = request.path_params["gid"], str(form.get("bucket") or "")
        if not bid:
            raise HTTPException(400, "choose the bucket to split out")
        try:
            res = actions.split(self.st, bid)
        except ValueError as e:  # an unknown bucket
            return self._done(request, str(e), f"/bucket/{quote(bid)}", 400)
        return self._done(request, f"{bid} split out of group {group} ({res})", f"/bucket/{quote(bid)}")

    async def merge(self, request: Request):
        self.require_token(request)
        form = await request.form()
        groups = [str(g) for g in form.getlist("group")]
        if len(groups) < 2:
            raise HTTPException(400, "choose at least two groups to merge")
        try:
            res = actions.merge(self.st, groups)
        except ValueError as e:  # an unknown group or bucket, or nothing to merge
            return self._done(request, str(e), "/bugs", 400)
        return self._done(request, f"merged {', '.join(groups)} ({res})", "/bugs")

    # ---- errors: one masked line ----------------------------------------------------------------
    def http_error(self, request: Request, exc: HTTPException):
        return self.page(request, "error.html", status=exc.status_code, message=redis_url.mask_text(str(exc.detail), self.url))

    def store_error(self, request: Request, exc: Exception):
        msg = redis_url.mask_text(f"{type(exc).__name__}: {exc}", self.url)
        return self.page(request, "error.html", status=503, message=f"Redis at {self.masked}: {msg}")


def create_app(url: str, token: str | None = None, store: S.Store | None = None) -> Starlette:
    """The ASGI app for the Redis at ``url``. ``token``: enables the state-changing routes."""
    site = _Site(url, token, store or S.Store(url))
    routes = [
        Route("/", site.index), Route("/campaigns", site.campaigns),
        Route("/campaigns/fragment", lambda r: site.campaigns(r, "campaigns_table.html")),
        Route("/campaign/{cid}", site.campaign), Route("/campaign/{cid}/fragment", lambda r: site.campaign(r, "campaign_live.html")),
        Route("/campaign/{cid}/cancel", site.cancel, methods=["POST"]),
        Route("/bugs", site.bugs), Route("/bucket/{bid}", site.bucket), Route("/bucket/{bid}/file/{name}", site.bucket_file),
        Route("/group/{gid}/split", site.split, methods=["POST"]), Route("/groups/merge", site.merge, methods=["POST"]),
        Route("/workers", site.workers), Route("/login", site.login_form), Route("/login", site.login, methods=["POST"]),
        Route("/logout", site.logout, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("fuzzfarm.web", "static")]), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: site.http_error, S.StoreError: site.store_error,
                                                        redis_py.RedisError: site.store_error})
