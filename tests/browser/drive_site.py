#!/usr/bin/python3
"""Drives kbench's report site in headless Chromium (Selenium + chromedriver)
as a reader would, and prints what the browser showed as JSON, for
tests/test_site.c to check: rows visible after typing a filter and after
choosing a host, the metric page reached by clicking a row, the points its
chart drew, the legend after hovering a point, console errors, overflow at
each width, and screenshots.

usage: drive_site.py SITE_DIR OUT_DIR FILTER_WORD HOST
"""
import json
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

site, out, word, host = sys.argv[1:5]


def browser():
    o = webdriver.ChromeOptions()
    o.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
              "--window-size=1280,1000"):
        o.add_argument(a)
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=o)


def visible_rows(d):
    return d.execute_script(
        "return Array.from(document.querySelectorAll('#overview tbody tr'))"
        ".filter(r => !r.hidden).length")


def errors(d):
    return [e["message"] for e in d.get_log("browser") if e["level"] == "SEVERE"]


def overflow(d):
    return d.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth")


def settle(d, cond, what):
    # Bounded: the page's own script answers within the timeout or the run says so.
    WebDriverWait(d, 30, poll_frequency=0.05).until(cond, message=what)


facts = {}
d = browser()
try:
    d.set_window_size(1280, 1000)
    d.get("file://%s/index.html" % site)
    settle(d, lambda d: d.find_element(By.ID, "count").text != "", "the overview's count")
    facts["rows"] = visible_rows(d)
    facts["count_text"] = d.find_element(By.ID, "count").text
    box = d.find_element(By.ID, "filter")
    box.click()
    box.send_keys(word)
    facts["rows_filtered"] = visible_rows(d)
    facts["count_filtered"] = d.find_element(By.ID, "count").text
    box.clear()
    box.send_keys(" ")  # an input event with nothing to match: every row again
    Select(d.find_element(By.ID, "group")).select_by_visible_text(host)
    facts["rows_host"] = visible_rows(d)
    facts["overview_errors"] = errors(d)
    facts["overview_overflow_1280"] = overflow(d)
    d.save_screenshot("%s/overview-1280.png" % out)
    d.set_window_size(400, 900)
    time.sleep(0.2)
    facts["overview_overflow_400"] = overflow(d)
    d.save_screenshot("%s/overview-400.png" % out)
    d.set_window_size(1280, 1000)

    # A real click on the first row still shown (the host chosen above).
    row = [r for r in d.find_elements(By.CSS_SELECTOR, "#overview tbody tr") if r.is_displayed()][0]
    facts["clicked_group"] = row.get_attribute("data-group")
    facts["clicked_href"] = row.get_attribute("data-href")
    row.find_element(By.CSS_SELECTOR, "td.group").click()
    settle(d, lambda d: d.current_url.endswith(facts["clicked_href"]), "the metric page")
    settle(d, lambda d: d.execute_script("return !!window.kbenchChart && "
                                         "window.kbenchChart.numRows() > 0"), "the chart")
    g = "window.kbenchChart"
    facts["chart_rows"] = d.execute_script("return %s.numRows()" % g)
    facts["chart_labels"] = d.execute_script("return %s.getLabels()" % g)
    facts["chart_points"] = d.execute_script(
        "var g = %s, n = [];"
        "for (var c = 1; c < g.numColumns(); c++) {"
        "  var k = 0; for (var i = 0; i < g.numRows(); i++) if (g.getValue(i, c) !== null) k++;"
        "  n.push(k); } return n;" % g)
    # Hover the newest point of the clicked host's line and read the legend.
    col = facts["chart_labels"].index(facts["clicked_group"])
    last = d.execute_script(
        "var g = %s, c = %d; for (var i = g.numRows() - 1; i >= 0; i--)"
        " if (g.getValue(i, c) !== null) return i; return -1;" % (g, col))
    x, y, value = d.execute_script(
        "var g = %s, i = %d, c = %d, v = g.getValue(i, c);"
        "var m = Array.isArray(v) ? v[1] : v;"
        "return [g.toDomXCoord(g.getValue(i, 0)), g.toDomYCoord(m), m];" % (g, last, col))
    canvas = d.find_element(By.CSS_SELECTOR, "#chart canvas")
    w, h = canvas.size["width"], canvas.size["height"]
    ActionChains(d).move_to_element_with_offset(canvas, int(x - w / 2), int(y - h / 2)).perform()
    settle(d, lambda d: d.find_element(By.ID, "legend").text.strip() != "", "the legend")
    facts["hover_value"] = value
    facts["hover_expected"] = d.execute_script(
        "return window.kbenchHuman(arguments[0], JSON.parse("
        "document.getElementById('kbench-data').textContent).unit)", value)
    facts["legend"] = d.find_element(By.ID, "legend").text
    facts["metric_errors"] = errors(d)
    facts["metric_overflow_1280"] = overflow(d)
    d.save_screenshot("%s/metric-1280.png" % out)
    d.set_window_size(400, 900)
    time.sleep(0.2)
    facts["metric_overflow_400"] = overflow(d)
    d.save_screenshot("%s/metric-400.png" % out)
finally:
    d.quit()
print(json.dumps(facts))
