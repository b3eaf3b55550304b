"""
The play page's languages in headless Chromium (as L{tests.web.
test_browser} drives it): the language from the browser's Accept-Language,
the switch on the page, and Chinese drawn in a CJK font of the page's
stack (Debian's C{fonts-wqy-microhei}), not as boxes, with no font from
anywhere (the CSP allows none).
"""

from twisted.trial.unittest import SynchronousTestCase

from tests.endtoend import GamehubServer
from tests.web.test_browser import WAIT, browser

#: Chinese text of the page, drawn in a canvas in the page's fonts: one
#: character at a time, each must differ from the others and from a
#: character no font has (a box, the "tofu" of a missing glyph).
GLYPHS = """
const font = arguments[0];
const canvas = document.createElement("canvas");
canvas.width = 64;
canvas.height = 64;
const context = canvas.getContext("2d", {willReadFrequently: true});
function drawn(text) {
  context.clearRect(0, 0, 64, 64);
  context.font = "40px " + font;
  context.fillStyle = "#000";
  context.textBaseline = "top";
  context.fillText(text, 4, 4);
  const pixels = context.getImageData(0, 0, 64, 64).data;
  let inked = 0;
  for (let i = 3; i < pixels.length; i += 4) if (pixels[i]) inked++;
  return {pixels: Array.from(pixels).join(","), inked,
          width: context.measureText(text).width};
}
return {missing: drawn("\\u{10FFFD}"),
        characters: Array.from("对弈跳棋璀璨宝石", drawn)};
"""


def chineseBrowser():
    """
    A headless Chromium whose Accept-Language asks for Chinese first.
    """
    return browser("zh-CN,zh;q=0.9,en;q=0.5")


class LanguageTests(SynchronousTestCase):
    """
    C{/play} in Chromium: the language asked for, the switch, the fonts.
    """

    def setUp(self):
        self.driver = chineseBrowser()
        self.addCleanup(self.driver.quit)
        self.server = GamehubServer(self, games=("gomoku", "splendor",
                                                 "web"))
        self.base = "http://127.0.0.1:%d" % (self.server.port("web"),)

    def wait(self, condition, message):
        from selenium.webdriver.support.ui import WebDriverWait
        return WebDriverWait(self.driver, WAIT, poll_frequency=0.05).until(
            lambda driver: condition(), message)

    def find(self, selector):
        from selenium.webdriver.common.by import By
        return self.driver.find_elements(By.CSS_SELECTOR, selector)

    def text(self, selector):
        from selenium.common.exceptions import WebDriverException
        try:
            return [node.text for node in self.find(selector)]
        except WebDriverException:
            return []

    def platformFonts(self, selector):
        """
        The fonts Chromium drew the text of C{selector}'s element with
        (the DevTools protocol's C{CSS.getPlatformFontsForNode}): a
        L{dict} of family names and glyph counts.
        """
        cdp = self.driver.execute_cdp_cmd
        cdp("DOM.enable", {})
        cdp("CSS.enable", {})
        root = cdp("DOM.getDocument", {"depth": -1})["root"]["nodeId"]
        node = cdp("DOM.querySelector", {"nodeId": root,
                                         "selector": selector})["nodeId"]
        fonts = cdp("CSS.getPlatformFontsForNode", {"nodeId": node})
        return {font["familyName"]: font["glyphCount"]
                for font in fonts["fonts"]}

    def test_acceptLanguageAndSwitch(self):
        """
        A browser asking for Chinese gets the page in Chinese; the switch
        ("English") gives it in English, and back ("中文").
        """
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.text("label[for=name]") == ["你的名字"],
                  "the page is not in Chinese")
        self.assertEqual(self.driver.execute_script(
            "return document.documentElement.lang"), "zh")
        self.assertEqual(self.text("nav a.play"), ["对弈"])
        self.assertEqual(self.text("main > h1"), ["对弈"])
        self.assertEqual(self.driver.title, "对弈 - gamehub")
        [switch] = self.find("a.lang")
        self.assertEqual(switch.text, "English")
        switch.click()
        self.wait(lambda: self.text("label[for=name]") == ["Your name"],
                  "the switch did not give English")
        self.assertEqual(self.driver.execute_script(
            "return document.documentElement.lang"), "en")
        self.assertEqual(self.text("nav a.play"), ["play"])
        self.assertEqual(self.text("a.lang"), ["中文"])
        self.find("a.lang")[0].click()
        self.wait(lambda: self.text("label[for=name]") == ["你的名字"],
                  "the switch did not give Chinese")

    def test_switchRemembered(self):
        """
        A person switching a page to English with the header's switch
        sees the next page, reached by a link, in English (the C{lang}
        cookie), though the browser asks for Chinese; and back.
        """
        self.driver.get(self.base + "/")
        self.wait(lambda: self.text("main > h1") == ["服务器现况"],
                  "the lobby is not in Chinese")
        self.assertEqual(self.driver.execute_script(
            "return document.documentElement.lang"), "zh")
        [switch] = self.find("nav a.lang-en")
        self.assertEqual(switch.text, "English")
        switch.click()
        self.wait(lambda: self.text("main > h1") == ["The hub now"],
                  "the switch did not give English")
        self.find("nav a.play")[0].click()
        self.wait(lambda: self.text("label[for=name]") == ["Your name"],
                  "the next page is not in English")
        self.assertEqual(self.driver.execute_script(
            "return document.documentElement.lang"), "en")
        self.assertEqual(self.text("nav a.tournaments"), ["tournaments"])
        self.find("nav a.lang-zh")[0].click()
        self.wait(lambda: self.text("label[for=name]") == ["你的名字"],
                  "the switch did not give Chinese")
        self.find("nav a.brand")[0].click()
        self.wait(lambda: self.text("main > h1") == ["服务器现况"],
                  "the next page is not in Chinese")

    def test_splendorSeatsInChinese(self):
        """
        Splendor against a bot, in Chinese: each seat's points read in
        the language's words and brackets (C{ann（0 分）}), never the
        English ones around Chinese (C{player 26 (8 分)}; Splendor's
        seats are named by the protocol, C{player N}).
        """
        import re
        from selenium.common.exceptions import WebDriverException
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.text("label[for=name]") == ["你的名字"],
                  "the page is not in Chinese")
        self.find("#name")[0].send_keys("ann")
        self.find("#hello")[0].click()
        self.wait(lambda: self.find("#pick-splendor"), "no game to pick")
        self.find("#pick-splendor")[0].click()
        self.wait(lambda: self.find('#pick-splendor[aria-pressed="true"]'),
                  "Splendor not picked")
        self.find("#new-splendor")[0].click()

        def seats():
            try:
                return [item.text for item in self.find("#seats li")]
            except WebDriverException:
                return []
        self.wait(lambda: len(seats()) == 2 and all(
            re.search("\uff08\\d+ \u5206\uff09", s) for s in seats()),
            "the seats' points are not in Chinese brackets")
        for seat in seats():
            self.assertNotRegex(seat, r"\(|points")

    def test_guestNameWhy(self):
        """
        A guest name the protocols refuse (游客一) is refused by the form
        with why a name is ASCII, in the page's language, not the
        browser's "Please match the requested format".
        """
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.text("label[for=name]") == ["你的名字"],
                  "the page is not in Chinese")
        [name] = self.find("#name")
        name.send_keys("游客一")
        self.find("#hello")[0].click()
        message = self.driver.execute_script(
            "return document.getElementById('name').validationMessage")
        self.assertIn("旧版游戏客户端的协议", message)
        self.assertIn("旧版游戏客户端的协议", self.text("#name-why")[0])

    def test_chineseFont(self):
        """
        The Chinese page's text is drawn with a CJK font of its stack
        (WenQuanYi Micro Hei on Debian), buttons included, and is not
        boxes: each character is drawn differently, and differently from
        a character no font has.  No font comes from the network (the
        page has no web font: the CSP allows none).
        """
        self.driver.get(self.base + "/play")
        self.wait(lambda: self.text("#hello") == ["进入"],
                  "the page is not in Chinese")
        family = self.driver.execute_script(
            "return getComputedStyle(document.body).fontFamily")
        self.assertIn('"WenQuanYi Micro Hei"', family)
        self.assertEqual(self.driver.execute_script(
            "return getComputedStyle(document.getElementById('hello'))"
            ".fontFamily"), family)
        stack = [name.strip().strip('"') for name in family.split(",")]
        for selector in ("main > h1", "#hello", "label[for=name]"):
            fonts = self.platformFonts(selector)
            self.assertTrue(fonts, selector)
            cjk = [name for name in fonts if name in stack]
            self.assertTrue(cjk, (selector, fonts, stack))
        self.assertIn("WenQuanYi Micro Hei", self.platformFonts("main > h1"))
        drawn = self.driver.execute_script(GLYPHS, family)
        missing = drawn["missing"]["pixels"]
        seen = set()
        for character in drawn["characters"]:
            self.assertGreater(character["inked"], 50)
            self.assertNotEqual(character["pixels"], missing)
            seen.add(character["pixels"])
        self.assertEqual(len(seen), len(drawn["characters"]))
        self.assertEqual(self.driver.execute_script(
            "return document.fonts.size"), 0)
        self.assertEqual(self.driver.execute_script(
            "return performance.getEntriesByType('resource')"
            ".filter(e => !e.name.startsWith(location.origin)).length"), 0)

