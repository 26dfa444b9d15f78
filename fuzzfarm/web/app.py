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


def create_app(url: str, token: str | None = None, store: S.Store | None = None) -> Starlette:
    """The ASGI app for the Redis at ``url``. ``token``: enables the state-changing routes."""
    st = store or S.Store(url)
    env = _env()
    masked = redis_url.mask(url)

    def page(request: Request, name: str, status: int = 200, **ctx) -> HTMLResponse:
        ctx.update(request=request, redis=masked, can_change=token is not None, authed=_authed(request),
                   refresh_ms=REFRESH_MS, nav=name.split(".")[0])
        html = env.get_template(name).render(**ctx)
        # whatever a harness or a message carried, the Redis password never leaves in a page
        return HTMLResponse(redis_url.mask_text(html, url), status_code=status)

    def _authed(request: Request) -> bool:
        if token is None:
            return False
        given = request.headers.get(HEADER) or request.cookies.get(COOKIE) or ""
        return hmac.compare_digest(given.encode(), token.encode())

    def require_token(request: Request) -> None:
        if token is None:
            raise HTTPException(403, "this web view is read-only: start `fuzzfarm web --token T` to cancel, "
                                     "split or merge from the page")
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host"):
            raise HTTPException(403, "cross-origin request refused")
        if not _authed(request):
            raise HTTPException(403, "missing or wrong token: log in at /login")

    # ---- pages -----------------------------------------------------------------------------
    async def index(request: Request):
        return RedirectResponse("/campaigns", status_code=303)

    def campaigns(request: Request, template: str = "campaigns.html"):
        return page(request, template, rows=views.campaigns(st)[::-1])  # newest first

    def campaign(request: Request, template: str = "campaign.html"):
        cid = request.path_params["cid"]
        c = views.campaign(st, cid)
        if c is None:
            raise HTTPException(404, f"no campaign {cid}")
        return page(request, template, c=c, **_campaign_parts(cid, c))

    def _campaign_parts(cid: str, c: dict) -> dict:
        ser = data.series(st, cid)
        span = max(float(c["duration_s"]), max((t for t, _ in ser["execs"] + ser["buckets"]), default=0))
        charts = [plots.line_chart(ser["execs"], title="execs (all jobs)", css="execs", x_max=span),
                  plots.line_chart(ser["cov"], title="coverage (edges, best job)", css="cov", x_max=span),
                  plots.line_chart(ser["buckets"], title="buckets found", css="buckets", step=True, x_max=span)]
        return {"charts": charts, "jobs": views.jobs(st, cid), "buckets": views.bucket_rows(st, cid)}

    def bugs(request: Request):
        q = request.query_params
        f = {"harness": q.get("harness", ""), "kind": q.get("kind", ""), "verdict_": q.get("verdict", "")}
        rows = views.bucket_rows(st)[::-1]  # newest first, in their groups; the largest group first
        groups = sorted(views.groups(data.filter_rows(rows, **f)), key=lambda g: (-g["count"], g["id"]))
        return page(request, "bugs.html", groups=groups,
                    choices=data.filter_choices(rows),
                    f={"harness": f["harness"], "kind": f["kind"], "verdict": f["verdict_"]})

    def bucket(request: Request):
        bid = request.path_params["bid"]
        b = views.bucket(st, bid)
        if b is None:
            raise HTTPException(404, f"no bucket {bid}")
        files = st.artifact(bid)  # each file checked against its stored sha256, as `fuzzfarm download`
        tj, source = data.trace(st, bid, files)
        svg, model = None, None
        if tj:
            model = swimlane.build(tj)
            svg = swimlane.render(model)
        manifest = json.loads(files["MANIFEST.json"])["files"] if files and "MANIFEST.json" in files else {}
        listing = [{"name": n, "size": len(d), "sha256": S.sha256(d), "manifest": manifest.get(n)}
                   for n, d in sorted((files or {}).items())]
        text = lambda n: files[n].decode("utf-8", "replace") if files and n in files else None  # noqa: E731
        # the regression test `fuzzfarm download` writes beside the artifact, as it writes it
        regression = [(n, t.decode()) for n, t in views.regression_test(st.bucket(bid)).items()][0] if files else None
        repro = json.loads(files["repro.json"]) if files and "repro.json" in files else {}
        return page(request, "bucket.html", b=b, files=listing, failure=text("failure.txt"), trace_text=text("trace.txt"),
                    svg=svg, model=model, trace_source=source, scenario=(tj or {}).get("scenario"),
                    repro=repro, regression=regression)

    def bucket_file(request: Request):
        bid, name = request.path_params["bid"], request.path_params["name"]
        files = st.artifact(bid)
        if not files or name not in files:
            raise HTTPException(404, f"bucket {bid} has no file {name}")
        body = files[name]
        return Response(body, media_type="application/octet-stream",
                        headers={"Content-Disposition": f'attachment; filename="{quote(name)}"',
                                 "X-Content-SHA256": S.sha256(body), "Cache-Control": "no-store"})

    def workers(request: Request):
        return page(request, "workers.html", w=data.workers(url))

    # ---- token and state-changing routes ------------------------------------------------------
    def login_form(request: Request):
        return page(request, "login.html", error="")

    async def login(request: Request):
        if token is None:
            raise HTTPException(403, "this web view has no token: start `fuzzfarm web --token T`")
        form = await request.form()
        given = str(form.get("token") or "")
        if not hmac.compare_digest(given.encode(), token.encode()):
            return page(request, "login.html", status=403, error="wrong token")
        resp = RedirectResponse("/campaigns", status_code=303)
        resp.set_cookie(COOKIE, token, httponly=True, samesite="strict", path="/")
        return resp

    async def logout(request: Request):
        resp = RedirectResponse("/campaigns", status_code=303)
        resp.delete_cookie(COOKIE, path="/")
        return resp

    def _done(request: Request, message: str, back: str, status: int = 200):
        return page(request, "done.html", status=status, message=message, back=back)

    async def cancel(request: Request):
        require_token(request)
        cid = request.path_params["cid"]
        if st.campaign(cid) is None:
            raise HTTPException(404, f"no campaign {cid}")
        try:
            res = actions.cancel(st, cid)
        except actions.ActionError as e:  # already settled: nothing changed
            return _done(request, str(e), f"/campaign/{quote(cid)}", 409)
        return _done(request, f"campaign {cid}: cancel requested ({res})", f"/campaign/{quote(cid)}")

    async def split(request: Request):
        require_token(request)
        form = await request.form()
        group, bid = request.path_params["gid"], str(form.get("bucket") or "")
        if not bid:
            raise HTTPException(400, "choose the bucket to split out")
        try:
            res = actions.split(st, bid)
        except ValueError as e:  # an unknown bucket
            return _done(request, str(e), f"/bucket/{quote(bid)}", 400)
        return _done(request, f"{bid} split out of group {group} ({res})", f"/bucket/{quote(bid)}")

    async def merge(request: Request):
        require_token(request)
        form = await request.form()
        groups = [str(g) for g in form.getlist("group")]
        if len(groups) < 2:
            raise HTTPException(400, "choose at least two groups to merge")
        try:
            res = actions.merge(st, groups)
        except ValueError as e:  # an unknown group or bucket, or nothing to merge
            return _done(request, str(e), "/bugs", 400)
        return _done(request, f"merged {', '.join(groups)} ({res})", "/bugs")

    # ---- errors: one masked line ----------------------------------------------------------------
    def http_error(request: Request, exc: HTTPException):
        return page(request, "error.html", status=exc.status_code, message=redis_url.mask_text(str(exc.detail), url))

    def store_error(request: Request, exc: Exception):
        msg = redis_url.mask_text(f"{type(exc).__name__}: {exc}", url)
        return page(request, "error.html", status=503, message=f"Redis at {masked}: {msg}")

    routes = [
        Route("/", index), Route("/campaigns", campaigns), Route("/campaigns/fragment", lambda r: campaigns(r, "campaigns_table.html")),
        Route("/campaign/{cid}", campaign), Route("/campaign/{cid}/fragment", lambda r: campaign(r, "campaign_live.html")),
        Route("/campaign/{cid}/cancel", cancel, methods=["POST"]),
        Route("/bugs", bugs), Route("/bucket/{bid}", bucket), Route("/bucket/{bid}/file/{name}", bucket_file),
        Route("/group/{gid}/split", split, methods=["POST"]), Route("/groups/merge", merge, methods=["POST"]),
        Route("/workers", workers), Route("/login", login_form), Route("/login", login, methods=["POST"]),
        Route("/logout", logout, methods=["POST"]),
        Mount("/static", StaticFiles(packages=[("fuzzfarm.web", "static")]), name="static"),
    ]
    return Starlette(routes=routes, exception_handlers={HTTPException: http_error, S.StoreError: store_error,
                                                        redis_py.RedisError: store_error})
