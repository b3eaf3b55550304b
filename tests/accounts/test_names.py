"""
Account names, play keys and the keyed name forms.
"""

from twisted.trial.unittest import TestCase

from hub.accounts import names, websessions
from hub.protocols.checkers import isValidName


class NameTests(TestCase):
    """
    L{names.checkName}, L{names.splitKeyed}, the keys.
    """

    def test_names(self):
        """
        1 to 8 letters, digits, single underscores, none at the end.
        """
        for good in ("a", "alice", "Bob_2", "a_b_c_d", "12345678"):
            names.checkName(good)
        for bad in ("", "abcdefghi", "a__b", "ab_", "al ice", "al#ce",
                    "alice\u00e9"):
            self.assertRaises(names.BadName, names.checkName, bad)

    def test_keyedFormsFitEveryProtocol(self):
        """
        The longest name's checkers form is a valid checkers name of 20
        characters; its gomoku form is at most 35 bytes.
        """
        key = names.newKey()
        self.assertEqual(len(key), names.KEY_LENGTH)
        self.assertTrue(set(key) <= set(names.KEY_ALPHABET))
        longest = "a" * names.MAX_NAME
        keyed = names.keyedName("checkers", longest, key)
        self.assertEqual(len(keyed), 20)
        self.assertTrue(isValidName(keyed))
        self.assertLessEqual(len(names.keyedName("gomoku", longest, key)),
                             35)

    def test_split(self):
        """
        A name holding any protocol's separator splits at the first one
        into the name before it and the rest, whatever its length
        (docs/accounts.md, "Names"); the rest is a key only in its own
        protocol's form, 10 letters and digits.
        """
        cases = [("a_b__0123456789", ("a_b", "__", "0123456789")),
                 ("bob#abcdeABCDE", ("bob", "#", "abcdeABCDE")),
                 ("bob__short", ("bob", "__", "short")),
                 ("__0123456789", ("", "__", "0123456789")),
                 ("bob#0123456789", ("bob", "#", "0123456789")),
                 ("bob___0123456789", ("bob", "__", "_0123456789")),
                 ("a#b__c", ("a", "#", "b__c")),
                 ("bob#", ("bob", "#", ""))]
        for name, parts in cases:
            keyed = names.splitKeyed(name)
            self.assertEqual((keyed.name, keyed.separator, keyed.rest),
                             parts, name)
            self.assertNotIn(keyed.rest or "-", repr(keyed))
        for name in ("bob", "bob_", "b_o_b", "", "#"[:0]):
            self.assertIsNone(names.splitKeyed(name), name)
        self.assertEqual(names.splitKeyed("a_b__0123456789").keyFor(
            "checkers"), "0123456789")
        self.assertEqual(names.splitKeyed("bob#abcdeABCDE").keyFor("gomoku"),
                         "abcdeABCDE")
        for kind, name in [("checkers", "bob__short"),
                           ("checkers", "bob#0123456789"),
                           ("gomoku", "bob__0123456789"),
                           ("gomoku", "bob#01234_6789"),
                           ("gomoku", "bob#0123456789x"),
                           ("splendor", "bob__0123456789"),
                           ("web", "bob__0123456789")]:
            self.assertIsNone(names.splitKeyed(name).keyFor(kind), name)

    def test_keysHashed(self):
        """
        A key matches its HMAC under the same secret only.
        """
        stored = names.keyHash(b"s" * 32, "0123456789")
        self.assertNotIn("0123456789", stored)
        self.assertTrue(names.keyMatches(b"s" * 32, "0123456789", stored))
        self.assertFalse(names.keyMatches(b"s" * 32, "0123456788", stored))
        self.assertFalse(names.keyMatches(b"t" * 32, "0123456789", stored))

    def test_keysRandom(self):
        """
        Keys differ.
        """
        self.assertEqual(len({names.newKey() for _ in range(50)}), 50)


class SecretsTests(TestCase):
    """
    Play keys, session ids, tokens and invite codes come from L{secrets};
    keys and CSRF tokens are compared with L{hmac.compare_digest}.
    """

    def recorded(self, module, name):
        """
        Wrap C{module.name}, recording each call's result.
        """
        calls = []
        original = getattr(module, name)

        def wrapper(*args, **kwargs):
            result = original(*args, **kwargs)
            calls.append(result)
            return result
        self.patch(module, name, wrapper)
        return calls

    def test_fromSecrets(self):
        """
        A new key is made of L{secrets.choice}s; a session id (or token,
        or invite) is L{secrets.token_urlsafe} of 32 bytes.
        """
        choices = self.recorded(names.secrets, "choice")
        key = names.newKey()
        self.assertEqual("".join(choices), key)
        self.assertEqual(len(key), names.KEY_LENGTH)
        tokens = self.recorded(websessions.secrets, "token_urlsafe")
        raw = websessions.newSecret()
        self.assertEqual(tokens, [raw])
        self.assertGreaterEqual(len(raw), 43)

    def test_constantTime(self):
        """
        A key's proof and a form's CSRF token are checked with
        L{hmac.compare_digest} (the name check calls L{names.keyMatches});
        a session id is found by its SHA-256, never compared.
        """
        compared = self.recorded(names.hmac, "compare_digest")
        stored = names.keyHash(b"s" * 32, "0123456789")
        self.assertTrue(names.keyMatches(b"s" * 32, "0123456789", stored))
        self.assertFalse(names.keyMatches(b"s" * 32, "0123456780", stored))
        self.assertEqual(compared, [True, False])
        self.assertIs(websessions.hmac, names.hmac)
        del compared[:]
        raw = websessions.newSecret()
        self.assertTrue(websessions.csrfMatches(
            raw, websessions.csrfToken(raw)))
        self.assertFalse(websessions.csrfMatches(raw, "0" * 64))
        self.assertEqual(compared, [True, False])
