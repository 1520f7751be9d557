"""Ending a YARN application whose job client tierbench ended (an interrupt, a stalled job).

Why: on YARN the job runs in the cluster's containers, not in the client's JVM; ending the client leaves the
application running, writing to the study's storage while the next run (or a resumed study) is measured. The client
prints the application's id (`Submitted application application_...`); the ResourceManager is asked to kill it
through its REST API (PUT /ws/v1/cluster/apps/{id}/state), at the web address of the cluster's yarn-site.xml.
"""

import json
import re
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

APP_ID = re.compile(r"\bapplication_\d+_\d+\b")
RM_WEB_PORT = 8088  # YARN's default yarn.resourcemanager.webapp.address port


def application_ids(text: str) -> list[str]:
    """The YARN applications a job client's log names, in order, each once."""
    return list(dict.fromkeys(APP_ID.findall(text)))


def _site(conf_dir) -> dict[str, str]:
    try:
        root = ET.parse(Path(conf_dir) / "yarn-site.xml").getroot()
    except (OSError, ET.ParseError):
        return {}
    return {p.findtext("name", "").strip(): p.findtext("value", "").strip() for p in root.iter("property")}


def rm_web_address(conf_dir) -> str:
    """host:port of the ResourceManager's web service, as the conf dir's yarn-site.xml gives it (YARN's defaults
    otherwise)."""
    site = _site(conf_dir) if conf_dir else {}
    host = site.get("yarn.resourcemanager.hostname") or "127.0.0.1"
    address = site.get("yarn.resourcemanager.webapp.address") or f"{host}:{RM_WEB_PORT}"
    address = address.replace("${yarn.resourcemanager.hostname}", host)
    if address.startswith("0.0.0.0:"):  # (listening everywhere: reached at its host name)
        address = f"{host}:{address.split(':', 1)[1]}"
    return address


def kill_application(app_id: str, web_address: str, timeout_s: float = 10.0) -> str | None:
    """Ask the ResourceManager to kill `app_id`: None once it accepted, else why not (one line)."""
    if not APP_ID.fullmatch(app_id):
        return f"{app_id!r} is not a YARN application id"
    req = urllib.request.Request(f"http://{web_address}/ws/v1/cluster/apps/{app_id}/state", method="PUT",
                                 data=json.dumps({"state": "KILLED"}).encode(),
                                 headers={"Content-Type": "application/json", "Accept": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout_s) as resp:
            resp.read()
        return None
    except urllib.error.HTTPError as e:
        return f"the ResourceManager at {web_address} refused to kill {app_id}: HTTP {e.code}"
    except (urllib.error.URLError, OSError) as e:
        return f"could not reach the ResourceManager at {web_address} to kill {app_id}: {getattr(e, 'reason', e)}"


def kill_applications(log_text: str, conf_dir) -> list[str]:
    """Every application the client's log names, killed; what could not be (one line each), for a warning."""
    address = rm_web_address(conf_dir)
    return [why for app in application_ids(log_text) if (why := kill_application(app, address))]
