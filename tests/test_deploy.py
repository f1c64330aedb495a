"""deploy/ and config.toml, checked without a Docker engine or a cluster: a public instance's
settings, and hosted replicas behind a sticky balancer (compose and nginx, Kubernetes) on the
app's port and health path."""

import re
from pathlib import Path

import yaml

from tests.support.ship import CONFIG, HEALTH, PORT, ROOT, args_of


def test_config_toml_is_fit_for_a_public_instance():
    server, client = CONFIG["server"], CONFIG["client"]
    assert server["headless"] is True and server["fileWatcherType"] == "none"
    assert server["enableXsrfProtection"] is True and server["enableCORS"] is True
    assert 0 < server["maxUploadSize"] <= 10
    assert CONFIG["browser"]["gatherUsageStats"] is False
    assert client["toolbarMode"] == "viewer"
    assert client["showErrorDetails"] in ("type", "none"), "no tracebacks for users"
    assert CONFIG["logger"]["hideWelcomeMessage"] is True, "no public-IP lookup at start"


def yaml_docs(path: Path) -> list[dict]:
    """Every YAML document of a file."""
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def test_compose_runs_hosted_replicas_behind_a_sticky_balancer():
    (compose,) = yaml_docs(ROOT / "deploy" / "compose.yaml")
    app, lb = compose["services"]["app"], compose["services"]["lb"]
    assert app["build"]["context"] == ".." and "EXTRA" in app["build"]["args"]
    assert str(app["environment"]["PERFCORE_HOSTED"]) == "1"
    assert app["deploy"]["replicas"] >= 2 and str(PORT) in app["expose"]
    assert lb["depends_on"]["app"]["condition"] == "service_healthy"
    conf = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "ip_hash;" in conf and f"server app:{PORT};" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    size_mb = int(re.search(r"client_max_body_size (\d+)m;", conf).group(1))
    assert size_mb > CONFIG["server"]["maxUploadSize"], "nginx must not cap uploads first"
    source = lb["volumes"][0].split(":")[0]
    assert (ROOT / "deploy" / source).resolve() == ROOT / "deploy" / "nginx.conf"


def k8s(kind: str) -> dict:
    """The one manifest of `kind` among deploy/k8s/*.yaml."""
    docs = [d for p in sorted((ROOT / "deploy" / "k8s").glob("*.yaml")) for d in yaml_docs(p)]
    (doc,) = [d for d in docs if d.get("kind") == kind]
    return doc


def test_k8s_replicas_probe_health_and_keep_sessions_sticky():
    deployment, service, ingress = k8s("Deployment"), k8s("Service"), k8s("Ingress")
    assert deployment["spec"]["replicas"] >= 2
    pod = deployment["spec"]["template"]
    labels = deployment["spec"]["selector"]["matchLabels"]
    assert labels.items() <= pod["metadata"]["labels"].items()
    (container,) = pod["spec"]["containers"]
    assert [p["containerPort"] for p in container["ports"]] == [PORT]
    assert {"name": "PERFCORE_HOSTED", "value": "1"} in container["env"]
    for probe in ("readinessProbe", "livenessProbe"):
        assert container[probe]["httpGet"]["path"] == HEALTH
    security = pod["spec"]["securityContext"]
    assert security["runAsNonRoot"] is True
    assert str(security["runAsUser"]) == args_of("USER")[-1].split(":")[0]
    assert service["spec"]["sessionAffinity"] == "ClientIP"
    assert service["spec"]["selector"] == deployment["spec"]["selector"]["matchLabels"]
    notes = ingress["metadata"]["annotations"]
    assert notes["nginx.ingress.kubernetes.io/affinity"] == "cookie"
    body_mb = int(notes["nginx.ingress.kubernetes.io/proxy-body-size"].rstrip("m"))
    assert body_mb > CONFIG["server"]["maxUploadSize"], "the ingress must not cap uploads first"
    backend = ingress["spec"]["rules"][0]["http"]["paths"][0]["backend"]["service"]
    assert backend["name"] == service["metadata"]["name"]
    assert {backend["port"]["name"], service["spec"]["ports"][0]["targetPort"]} == {
        p["name"] for p in container["ports"]
    }
    kustomization = k8s("Kustomization")
    manifests = {p.name for p in (ROOT / "deploy" / "k8s").glob("*.yaml")}
    assert set(kustomization["resources"]) == manifests - {"kustomization.yaml"}
