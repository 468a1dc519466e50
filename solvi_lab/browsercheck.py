"""Check an HTML report in a real headless browser (Debian's `chromium`): it fits the window, images load, links resolve.

`check_page(path, width=1400)` (or a phone's 390: see MIN_WINDOW) opens a copy of the page beside it (so relative links and images resolve the same)
with a small script appended, lets chromium load it (`--headless --dump-dom`, a virtual-time budget so every image
has loaded), and reads back what the script measured:

- overflow: the page's scroll width against the window's, and every element whose right edge passes the window
  (a table, a `<pre>`, an image), named by tag, id or class and the start of its text;
- images: every `<img>` that did not load (`naturalWidth == 0`);
- links: every `<a href>`, resolved by the browser; a `file:` link must name an existing file, a `#fragment` an
  element with that id in its target page. (Checked here, from the browser's resolved URLs: chromium does not let
  a page read other `file:` URLs.)

Nothing is written outside a temporary folder and the copy beside the page (removed after): chromium's profile goes
to the temporary folder, not `~`.

>>> find_chromium() is None or find_chromium().endswith(("chromium", "chromium-browser", "chrome"))
True
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit

from .errors import SolviLabError

INSTALL = "apt-get update && apt-get install -y chromium"
#: Headless chromium's narrowest window (px). A narrower check (a phone's 390 px) lays the page out in an <html> of
#: that width inside the 500-px window: what overflows is measured against the narrower width; the page's media
#: queries see 500 px, so a narrow-screen rule must apply at 500 px too (the report's apply below 640 px).
MIN_WINDOW = 500

_SCRIPT = r"""
<script>
window.addEventListener("load", () => {
  const w = window.__solviWidth || window.innerWidth;
  const describe = (el) => {
    const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") +
      (el.className && typeof el.className === "string" ? "." + el.className.trim().replace(/\s+/g, ".") : "");
    return name + " “" + (el.textContent || el.getAttribute("src") || "").trim().slice(0, 60) + "”";
  };
  const wide = [];
  let rightmost = 0;
  for (const el of document.querySelectorAll("body *")) {
    const r = el.getBoundingClientRect();
    if (r.width > 0) rightmost = Math.max(rightmost, r.right);
    if (r.width > 0 && r.right > w + 0.5) {
      // report the outermost element that overflows, not each of its children
      if (!wide.some((o) => o.el.contains(el))) wide.push({el, right: Math.round(r.right)});
    }
  }
  const images = [...document.images].filter((i) => !(i.complete && i.naturalWidth > 0))
    .map((i) => i.getAttribute("src"));
  const links = [...document.querySelectorAll("a[href]")].map((a) => a.href);
  const ids = [...document.querySelectorAll("[id]")].map((e) => e.id);
  const out = document.createElement("pre");
  out.id = "solvi-browser-check";
  out.textContent = JSON.stringify({
    width: w,
    scrollWidth: window.__solviWidth ? Math.max(w, Math.round(rightmost)) : document.documentElement.scrollWidth,
    overflowing: wide.map((o) => describe(o.el) + " ends at " + o.right + " px"),
    images, links, ids,
    smallestImage: Math.min(...[...document.images].map((i) => i.getBoundingClientRect().width), 1e9),
  });
  out.style.display = "none";
  document.body.appendChild(out);
});
</script>
"""


@dataclass
class PageCheck:
    """What the browser measured on one page; `problems()` lists everything that is wrong, empty when all is well."""

    width: int
    scroll_width: int
    overflowing: list[str] = field(default_factory=list)
    broken_images: list[str] = field(default_factory=list)
    broken_links: list[str] = field(default_factory=list)
    links: int = 0
    images_smallest_px: float = 0.0

    def problems(self) -> list[str]:
        found = []
        if self.scroll_width > self.width:
            found.append(f"the page scrolls sideways: {self.scroll_width} px wide in a {self.width}-px window")
        found += [f"overflows the window: {o}" for o in self.overflowing]
        found += [f"image does not load: {i}" for i in self.broken_images]
        found += [f"link does not resolve: {link}" for link in self.broken_links]
        return found


def find_chromium() -> str | None:
    """The chromium binary on PATH ($SOLVI_LAB_CHROMIUM first), or None."""
    for name in (os.environ.get("SOLVI_LAB_CHROMIUM"), "chromium", "chromium-browser", "google-chrome", "chrome"):
        if name and (found := shutil.which(name)):
            return found
    return None


class _Ids(html.parser.HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.ids.update(v for k, v in attrs if k in ("id", "name") and v)


def _ids_of(path: Path) -> set[str]:
    parser = _Ids()
    parser.feed(path.read_text(encoding="utf-8", errors="replace"))
    return parser.ids


def _md_anchors(path: Path) -> set[str]:
    """GitHub's heading anchors of a Markdown file (lower case, punctuation dropped, spaces to hyphens)."""
    anchors = set()
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if line.startswith("#"):
            title = line.lstrip("#").strip().lower()
            anchors.add(re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", title)))
    return anchors


def broken_links(urls: list[str], page: Path, page_ids: set[str]) -> list[str]:
    """The links among `urls` (as the browser resolved them) that point at nothing.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.png").write_bytes(b"x"), (d / "p.html").write_text("<p id='top'>")
    >>> broken_links([(d / "a.png").as_uri(), (d / "b.png").as_uri(), (d / "p.html").as_uri() + "#top",
    ...               (d / "p.html").as_uri() + "#nope", "https://example.org/"], d / "p.html", {"top"})
    ['b.png (no such file)', 'p.html#nope (no element with that id)']
    """
    bad = []
    for url in urls:
        parts = urlsplit(url)
        if parts.scheme in ("http", "https", "mailto"):
            continue  # not ours to resolve offline; the report links only local files
        if parts.scheme != "file":
            bad.append(f"{url} (not a file link)")
            continue
        target = Path(unquote(parts.path))
        shown = os.path.relpath(target, page.parent) + (f"#{parts.fragment}" if parts.fragment else "")
        if not target.exists():
            bad.append(f"{shown} (no such file)")
            continue
        if parts.fragment:
            if target.resolve() == page.resolve():
                ids = page_ids
            elif target.suffix == ".md":
                ids = _md_anchors(target)
            elif target.suffix in (".html", ".htm"):
                ids = _ids_of(target)
            else:
                ids = None
            if ids is not None and unquote(parts.fragment) not in ids:
                bad.append(f"{shown} (no element with that id)")
    return bad


def check_page(page: Path | str, *, width: int = 1400, height: int = 1000, budget_ms: int = 10_000) -> PageCheck:
    """Load `page` in headless chromium at `width` × `height` px and measure it (see the module docstring)."""
    page = Path(page).resolve()
    if not page.is_file():
        raise SolviLabError(f"{page} does not exist; build it first (solvi-lab reproduce --quick).")
    chromium = find_chromium()
    if chromium is None:
        raise SolviLabError(f"no chromium on PATH to check {page.name} in a browser; install it: `{INSTALL}`.")
    probe = page.with_name(f".browsercheck-{os.getpid()}-{page.name}")
    text = page.read_text(encoding="utf-8")
    script = _SCRIPT
    if width < MIN_WINDOW:  # chromium's window is never narrower: lay the page out in a column that wide
        script = f"<style>html {{ width: {width}px; }}</style><script>window.__solviWidth = {width};</script>" + _SCRIPT
    probe.write_text(text.replace("</body>", script + "</body>") if "</body>" in text else text + script)
    try:
        with tempfile.TemporaryDirectory(prefix="solvi-chromium-") as profile:
            env = {**os.environ, "HOME": profile, "XDG_CONFIG_HOME": profile, "XDG_CACHE_HOME": profile}
            args = [
                chromium,
                "--headless",
                "--no-sandbox",  # CI runs as root, where chromium's sandbox refuses to start
                "--disable-gpu",
                "--no-first-run",
                "--hide-scrollbars",
                "--allow-file-access-from-files",
                f"--user-data-dir={profile}",
                f"--window-size={max(width, MIN_WINDOW)},{height}",
                f"--virtual-time-budget={budget_ms}",
                "--dump-dom",
                probe.as_uri(),
            ]
            done = subprocess.run(args, capture_output=True, text=True, timeout=120, env=env, check=False)
    finally:
        probe.unlink(missing_ok=True)
    found = re.search(r'<pre id="solvi-browser-check"[^>]*>(.*?)</pre>', done.stdout, flags=re.S)
    if found is None:
        raise SolviLabError(
            f"chromium did not run the check on {page.name} (exit {done.returncode}): "
            + (done.stderr.strip().splitlines() or ["no output"])[-1][:300]
        )
    import html as html_lib

    data = json.loads(html_lib.unescape(found.group(1)))
    links = [u.replace(probe.name, page.name) for u in data["links"]]
    return PageCheck(
        width=int(data["width"]),
        scroll_width=int(data["scrollWidth"]),
        overflowing=list(data["overflowing"]),
        broken_images=list(data["images"]),
        broken_links=broken_links(links, page, set(data["ids"])),
        links=len(links),
        images_smallest_px=float(data["smallestImage"]),
    )
