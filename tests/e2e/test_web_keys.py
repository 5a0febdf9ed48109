"""Settings' API keys card, in a real Chromium against the real server, in English and Chinese: a learner makes a key
for the account they are on (its secret shown once, with where a bot connects), drives that account with the real
alpaca-py on it, then revokes the key from the card — and alpaca-py is refused (401) on its next call. No English is
left on the Chinese screen, axe finds nothing serious, nothing overflows a phone."""

import pytest
from alpaca.common.exceptions import APIError
from alpaca.trading.client import TradingClient

from browser import App, chromium
from test_accessibility import findings
from test_web_app_zh import english_left


@pytest.fixture(scope="module", params=["en-US", "zh-CN"])
def driver(request):
    d = chromium(request.param)
    yield d
    d.quit()


def test_a_key_is_made_used_by_alpaca_py_and_revoked_from_settings(driver, server):
    app = App(driver, server).signup()
    chinese = driver.execute_script("return document.documentElement.lang") == "zh-Hans"
    app.size(390, 844)
    app.go("settings")
    card = ".api-keys"
    app.text_in(card + " h2", "API 密钥" if chinese else "API keys")
    app.text_in(card, "还没有密钥" if chinese else "No keys yet")
    app.click(card + " .actions button")
    app.visible(card + " .secret")
    codes = [c.text for c in app.all(card + " .secret code")]
    assert len(codes) == 2, codes
    key_id, secret = codes
    assert key_id.startswith("PK") and len(secret) > 30
    app.text_in(card + " .secret", server.url)
    app.text_in(card + " ul.keys", key_id)
    if chinese:
        assert english_left(app, card) == []
    assert findings(app, "settings with a new key") == []
    assert app.overflow(390) == 0
    assert app.overflow(320) == 0

    # The key drives the account the card was for (the one the learner is on, named in the card: the A-share
    # account of a Chinese learner), through the real alpaca-py.
    account = next(a for a in app.accounts() if a["name"] in app.text(card + " p.sub"))
    alpaca = TradingClient(key_id, secret, paper=True, url_override=server.url)
    assert str(alpaca.get_account().id) == account["id"]

    app.click(card + " ul.keys button.danger")
    app.text_in("dialog[open] .confirm", key_id)
    if chinese:
        assert english_left(app, "dialog[open]") == []
    app.click("dialog[open] .confirm button.danger")
    app.text_in(card, "还没有密钥" if chinese else "No keys yet")
    assert key_id not in app.text(card)
    with pytest.raises(APIError) as refused:
        alpaca.get_account()
    assert refused.value.status_code == 401
