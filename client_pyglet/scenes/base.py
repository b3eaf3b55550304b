"""
Scene base: a batch of shapes and labels rebuilt when the state changes,
clickable areas, text fields, a header bar and a message line.
"""

import pyglet
from pyglet import shapes
from pyglet.window import key
from twisted.logger import Logger

from hub.client.i18n import N_, _, language
from hub.client import events as E
from hub.client import hotseat
from hub.client import state as S
from hub.client.keyed import hideKey

log = Logger()

#: The palette.
BG = (24, 30, 44)
PANEL = (36, 45, 64)
PANEL_LIGHT = (52, 64, 90)
ACCENT = (86, 156, 214)
ACCENT_DARK = (58, 110, 160)
TEXT = (230, 234, 242)
MUTED = (150, 160, 180)
GOOD = (96, 190, 120)
BAD = (226, 96, 96)
GOLD = (236, 196, 80)
FONTS = ["DejaVu Sans", "Arial"]
#: Fonts for text with Chinese characters (pyglet does not fall back per
#: glyph).
CJK_FONTS = ["WenQuanYi Micro Hei", "Noto Sans CJK SC", "Microsoft YaHei",
             "PingFang SC", "DejaVu Sans"]


def fontsFor(s):
    """
    The font list that can show C{s}.
    """
    if language() == "zh" or any(ord(ch) >= 0x2E80 for ch in s):
        return CJK_FONTS
    return FONTS
#: Seconds a message stays in the message line.
MESSAGE_SECONDS = 6.0
#: The message line lies below this height: panels that start above it
#: are never covered by a message.
MESSAGE_BAND = 48


def rgba(c, a=255):
    """
    C{c} as an RGBA tuple with alpha C{a}.
    """
    return (c[0], c[1], c[2], a)


class ButtonView:
    """
    Where a button was drawn, and how (for tests and layout checks).

    @ivar label: the text on the button.
    @ivar rect: C{(x, y, width, height)}.
    @ivar size: the label's font size.
    @ivar enabled: whether it can be clicked.
    """

    def __init__(self, label, rect, size, enabled):
        self.label = label
        self.rect = rect
        self.size = size
        self.enabled = enabled

    def __repr__(self):
        return "<ButtonView %r at %r size %r>" % (self.label, self.rect,
                                                 self.size)


def contains(outer, inner):
    """
    Whether rectangle C{inner} lies within rectangle C{outer} (both
    C{(x, y, width, height)}).
    """
    ox, oy, ow, oh = outer
    ix, iy, iw, ih = inner
    return (ox <= ix and oy <= iy and ix + iw <= ox + ow
            and iy + ih <= oy + oh)


def overlaps(a, b):
    """
    Whether rectangles C{a} and C{b} (C{(x, y, width, height)}) share an
    area.
    """
    ax, ay, aw, ah = a
    bx, by, bw, bh = b
    return ax < bx + bw and bx < ax + aw and ay < by + bh and by < ay + ah


class Field:
    """
    A one-line text field.
    """

    def __init__(self, value="", maxLength=35, secret=False):
        self.value = value
        self.maxLength = maxLength
        self.secret = secret


class Scene:
    """
    A screen of the client.  Subclasses implement L{build}, creating
    shapes with the helpers below; the batch is rebuilt whenever the
    scene is invalidated (by a state event, a click, a key).

    @ivar app: the L{client_pyglet.app.App}.
    @ivar state: the session's state machine.
    @ivar buttons: the L{ButtonView}s of the last build, in drawing order.
    @ivar messageRect: the message line's C{(x, y, width, height)} in the
        last build, or None when no message is shown.
    """

    title = N_("gamehub")

    def __init__(self, app):
        self.app = app
        self.session = app.session
        self.state = app.session.state if app.session is not None else None
        self.width, self.height = app.options.size
        self.batch = None
        self.dirty = True
        self._keep = []
        self._hits = []
        self.buttons = []
        self.messageRect = None
        self._fields = {}
        self.focus = None
        self.mouse = (0, 0)
        self._clock = app.clock
        self._lastMessage = None
        self.setup()

    # lifecycle
    def setup(self):
        """
        Override: initialise the scene.
        """

    def close(self):
        """
        The scene is being replaced.
        """
        self._keep = []
        self.batch = None

    def invalidate(self):
        """
        Rebuild the batch before the next frame.
        """
        self.dirty = True

    def stateEvent(self, event):
        """
        A state event (one of L{hub.client.events}) arrived: rebuild by
        default.
        """
        if isinstance(event, E.Message):
            self._lastMessage = (event.kind, event.text,
                                 self._clock.seconds())
        self.invalidate()

    def draw(self):
        """
        Draw the scene (rebuilding it first if needed).
        """
        if self._lastMessage is not None:
            if self._clock.seconds() - self._lastMessage[2] > \
                    MESSAGE_SECONDS:
                self._lastMessage = None
                self.dirty = True
        if self.dirty or self.batch is None:
            self.rebuild()
        self.batch.draw()
        self.drawDynamic()

    def drawDynamic(self):
        """
        Override: draw what changes every frame (animations, timers).
        """

    def animating(self):
        """
        Override: whether an animation runs, so that every frame must be
        drawn (a timer's text may wait for the app's idle redraw).
        """
        return False

    def changed(self):
        """
        Whether the next frame differs from the last one drawn: the scene
        is to be built (again), or animates.
        """
        return self.dirty or self.batch is None or self.animating()

    def rebuild(self):
        """
        Build a fresh batch from the current state.
        """
        self.dirty = False
        self._keep = []
        self._hits = []
        self.buttons = []
        self.messageRect = None
        self.batch = pyglet.graphics.Batch()
        self.bgGroup = pyglet.graphics.Group(order=0)
        self._layers = [
            [pyglet.graphics.Group(order=i) for i in (1, 2, 3)],
            [pyglet.graphics.Group(order=i) for i in (11, 12, 13)],
        ]
        self.modal = False
        self.rect(0, 0, self.width, self.height, BG, group=self.bgGroup)
        self.build()
        self.modal = False
        self.buildHeader()
        self.buildMessage()

    @property
    def midGroup(self):
        return self._layers[self.modal][0]

    @property
    def fgGroup(self):
        return self._layers[self.modal][1]

    @property
    def topGroup(self):
        return self._layers[self.modal][2]

    def build(self):
        """
        Override: create the scene's shapes and hit areas.
        """

    # drawing helpers
    def keep(self, obj):
        self._keep.append(obj)
        return obj

    def rect(self, x, y, w, h, color, radius=0, group=None, alpha=255):
        """
        A filled (optionally rounded) rectangle.
        """
        group = group or self.midGroup
        if radius:
            r = shapes.RoundedRectangle(x, y, w, h, radius,
                                        color=rgba(color, alpha),
                                        batch=self.batch, group=group)
        else:
            r = shapes.Rectangle(x, y, w, h, color=rgba(color, alpha),
                                 batch=self.batch, group=group)
        return self.keep(r)

    def frame(self, x, y, w, h, color, thickness=2, group=None):
        """
        A rectangle outline.
        """
        group = group or self.fgGroup
        t = thickness
        for args in ((x, y, w, t), (x, y + h - t, w, t), (x, y, t, h),
                     (x + w - t, y, t, h)):
            self.rect(*args, color=color, group=group)

    def circle(self, x, y, r, color, group=None, alpha=255):
        """
        A filled circle.
        """
        return self.keep(shapes.Circle(
            x, y, r, color=rgba(color, alpha), batch=self.batch,
            group=group or self.fgGroup))

    def ring(self, x, y, r, color, thickness=3, group=None):
        """
        A circle outline.
        """
        return self.keep(shapes.Arc(
            x, y, r, color=rgba(color), thickness=thickness,
            batch=self.batch, group=group or self.topGroup))

    def line(self, x1, y1, x2, y2, color, width=1, group=None, alpha=255):
        """
        A straight line.
        """
        return self.keep(shapes.Line(
            x1, y1, x2, y2, thickness=width, color=rgba(color, alpha),
            batch=self.batch, group=group or self.midGroup))

    def text(self, s, x, y, size=12, color=TEXT, anchor_x="left",
             anchor_y="baseline", bold=False, width=None, group=None,
             multiline=False):
        """
        A label (never showing the play key: see L{hideKey}).
        """
        s = hideKey(s, getattr(self.app.options, "key", ""))
        kw = {}
        if width is not None:
            kw["width"] = width
            kw["multiline"] = multiline
        return self.keep(pyglet.text.Label(
            s, x=x, y=y, font_name=fontsFor(s), font_size=size,
            color=rgba(color), anchor_x=anchor_x, anchor_y=anchor_y,
            weight="bold" if bold else "normal", batch=self.batch,
            group=group or self.topGroup, **kw))

    def hit(self, x, y, w, h, callback, *args):
        """
        Make the rectangle clickable: C{callback(*args)} on a click.
        """
        self._hits.append((x, y, w, h, callback, args))

    def button(self, s, x, y, w, h, callback, *args, enabled=True,
               active=False, color=None, size=12):
        """
        A rounded button with a centred label.
        """
        mx, my = self.mouse
        hover = enabled and x <= mx <= x + w and y <= my <= y + h
        if not enabled:
            c = PANEL_LIGHT
        elif active:
            c = GOOD
        else:
            c = color or (ACCENT if hover else ACCENT_DARK)
        self.buttons.append(ButtonView(s, (x, y, w, h), size, enabled))
        self.rect(x, y, w, h, c, radius=min(8, h // 3))
        self.text(s, x + w / 2, y + h / 2, size=size,
                  color=TEXT if enabled else MUTED, anchor_x="center",
                  anchor_y="center")
        if enabled:
            self.hit(x, y, w, h, callback, *args)

    def field(self, name, label, x, y, w, value="", secret=False):
        """
        A text field remembered under C{name}; click to focus it.
        """
        f = self._fields.get(name)
        if f is None:
            f = self._fields[name] = Field(value, secret=secret)
        self.text(label, x, y + 38, size=10, color=MUTED)
        focused = self.focus == name
        self.rect(x, y, w, 30, (20, 25, 38) if focused else (28, 34, 50),
                  radius=5)
        self.frame(x, y, w, 30, ACCENT if focused else PANEL_LIGHT,
                   2 if focused else 1)
        shown = "*" * len(f.value) if f.secret else f.value
        self.text(shown + ("|" if focused else ""), x + 8, y + 9, size=12)
        self.hit(x, y, w, 30, self.setFocus, name)
        return f

    def fieldValue(self, name):
        f = self._fields.get(name)
        return f.value if f else ""

    def setFocus(self, name):
        self.focus = name
        self.invalidate()

    # chrome
    def buildHeader(self):
        """
        The header bar: title, player, connection.
        """
        h = 44
        y = self.height - h
        self.rect(0, y, self.width, h, PANEL, group=self.midGroup)
        self.text(_(self.title), 16, y + 14, size=15, bold=True)
        o = self.app.options
        if self.state is None:
            self.text(o.name, self.width - 16, y + 15, size=11,
                      color=MUTED, anchor_x="right")
            return
        if o.offline:
            where = _("offline")
        else:
            where = "%s:%d  ·  %s" % (o.host, o.port,
                                      self.state.connectionText())
        self.text("%s  ·  %s" % (self.state.shownName, where),
                  self.width - 16, y + 15, size=11, color=MUTED,
                  anchor_x="right")
        if self.app.connection.hotSeat and self.state.phase == S.GAME:
            self.rect(self.width / 2 - 170, y + 6, 340, 32, GOLD,
                      radius=8)
            self.text(hotseat.bannerText(self.state),
                      self.width / 2, y + 22, size=13, bold=True,
                      color=(30, 30, 30), anchor_x="center",
                      anchor_y="center")

    def buildMessage(self):
        """
        The message line at the bottom (errors in red).
        """
        if self._lastMessage is None:
            return
        kind, s, unused = self._lastMessage
        c = BAD if kind == "error" else ACCENT_DARK
        w = min(self.width - 40, 30 + 8 * len(s))
        x = (self.width - w) / 2
        self.messageRect = (x, 10, w, 30)
        self.rect(x, 10, w, 30, c, radius=8,
                  group=pyglet.graphics.Group(order=19))
        self.text(s, self.width / 2, 25, size=11, anchor_x="center",
                  anchor_y="center", group=pyglet.graphics.Group(order=20))

    # input
    def onMousePress(self, x, y, button):
        for (hx, hy, w, h, cb, args) in reversed(self._hits):
            if hx <= x <= hx + w and hy <= y <= hy + h:
                if cb != self.setFocus:
                    self.focus = None
                cb(*args)
                self.invalidate()
                return
        self.onBackgroundClick(x, y)
        self.invalidate()

    def onBackgroundClick(self, x, y):
        """
        Override: a click outside every hit area.
        """
        self.focus = None

    def onMouseMotion(self, x, y):
        old = self.mouse
        self.mouse = (x, y)
        for (hx, hy, w, h, cb, args) in self._hits:
            a = hx <= x <= hx + w and hy <= y <= hy + h
            b = hx <= old[0] <= hx + w and hy <= old[1] <= hy + h
            if a != b:
                self.invalidate()
                return

    def onKeyPress(self, symbol, modifiers):
        if self.focus is not None:
            f = self._fields[self.focus]
            if symbol == key.BACKSPACE:
                f.value = f.value[:-1]
                self.invalidate()
                return True
            if symbol in (key.ENTER, key.RETURN):
                self.onSubmit(self.focus)
                self.invalidate()
                return True
            if symbol == key.TAB:
                names = list(self._fields)
                i = names.index(self.focus)
                self.focus = names[(i + 1) % len(names)]
                self.invalidate()
                return True
            if symbol == key.ESCAPE:
                self.focus = None
                self.invalidate()
                return True
        return None

    def onText(self, s):
        if self.focus is not None:
            f = self._fields[self.focus]
            s = "".join(ch for ch in s if ch.isprintable())
            if s and len(f.value) + len(s) <= f.maxLength:
                f.value += s
                self.invalidate()

    def onSubmit(self, name):
        """
        Override: Enter pressed in field C{name}.
        """


class WaitScene(Scene):
    """
    Connecting, or disconnected.
    """

    def build(self):
        st = self.state
        if st.phase == S.CLOSED:
            s = _("Disconnected.")
        else:
            s = _("Connecting to %s:%d ...") % (self.app.options.host,
                                              self.app.options.port)
        self.text(s, self.width / 2, self.height / 2, size=20,
                  anchor_x="center", anchor_y="center")
        if st.messages:
            kind, m = st.messages[-1]
            self.text(m, self.width / 2, self.height / 2 - 40, size=12,
                      color=BAD if kind == "error" else MUTED,
                      anchor_x="center", anchor_y="center")
        if st.phase == S.CLOSED:
            self.button(_("Quit"), self.width / 2 - 60,
                        self.height / 2 - 120,
                        120, 36, self.app.stop, 0)


class NoticeScene(Scene):
    """
    A line of text while something starts (the offline hub).
    """

    def __init__(self, app, text):
        self.notice = text
        Scene.__init__(self, app)

    def build(self):
        self.text(self.notice, self.width / 2, self.height / 2, size=20,
                  anchor_x="center", anchor_y="center")
        if self.state is not None and self.state.messages:
            kind, m = self.state.messages[-1]
            self.text(m, self.width / 2, self.height / 2 - 40, size=12,
                      color=BAD if kind == "error" else MUTED,
                      anchor_x="center", anchor_y="center")


class GameSceneMixin:
    """
    The AI 托管 and Suggest buttons of the game screens, and when a click
    on the board may play.
    """

    log = Logger()

    def mayPlay(self):
        """
        Whether a click on the board may play now: it is our turn and
        AI 托管 is off.  If not, the user is told why.
        """
        st = self.state
        if not st.isMyTurn():
            st.error(_("wait for your turn"))
            return False
        if self.session.autoplay.enabled:
            st.notify(_("AI 托管 is on: turn it off to play yourself"))
            return False
        return True

    def buildAssist(self, x, y):
        ap = self.session.autoplay
        self.button(_("AI 托管: on") if ap.enabled else _("AI 托管: off"),
                    x, y, 150, 34, self.toggleAuto, active=ap.enabled)
        self.button(_("Suggest"), x + 160, y, 100, 34, self.suggest,
                    enabled=self.state.isMyTurn() and not ap.enabled)

    def toggleAuto(self):
        self.session.autoplay.toggle()

    def suggest(self):
        def shown(hint):
            if hint is None:
                self.state.notify(_("no suggestion now"))

        def failed(failure):
            self.log.failure("suggest failed", failure)
            self.state.error(_("no suggestion: %s") % (
                failure.getErrorMessage(),))
        self.session.autoplay.suggest().addCallback(shown).addErrback(
            failed)


class BoardSceneMixin(GameSceneMixin):
    """
    A game screen with a board of cells (C{cellAt(x, y)}, None off the
    board): a click remembers where it was, and on our turn the screen
    is redrawn when the pointer moves to another cell (hover marks).
    """

    def onMousePress(self, x, y, button):
        self.mouse = (x, y)
        Scene.onMousePress(self, x, y, button)

    def onMouseMotion(self, x, y):
        old = self.cellAt(*self.mouse)
        Scene.onMouseMotion(self, x, y)
        if self.state.isMyTurn() and self.cellAt(x, y) != old:
            self.invalidate()
