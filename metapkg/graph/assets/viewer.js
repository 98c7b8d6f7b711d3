// metapkg graph page: pan and zoom the SVG through its viewBox, filter packages by name or
// repository, and show a package's lock entry when it is clicked. Package data is only
// ever written with textContent.
(function () {
  "use strict";
  var svg = document.querySelector("#viewport > svg");
  var viewport = document.getElementById("viewport");
  var panel = document.getElementById("details");
  var packages = JSON.parse(document.getElementById("packages").textContent);
  var box = svg.viewBox.baseVal;
  var home = { x: box.x, y: box.y, w: box.width, h: box.height };
  var view = { x: home.x, y: home.y, w: home.w, h: home.h };
  var MIN = 0.05, MAX = 8; // zoom limits, relative to the whole picture

  function apply() {
    svg.setAttribute("viewBox", [view.x, view.y, view.w, view.h].join(" "));
  }

  function toPicture(clientX, clientY) {
    var point = svg.createSVGPoint();
    point.x = clientX;
    point.y = clientY;
    return point.matrixTransform(svg.getScreenCTM().inverse());
  }

  function zoom(factor, at) {
    var scale = home.w / (view.w * factor);
    if (scale < MIN || scale > MAX) return;
    at = at || { x: view.x + view.w / 2, y: view.y + view.h / 2 };
    view.x = at.x - (at.x - view.x) * factor;
    view.y = at.y - (at.y - view.y) * factor;
    view.w *= factor;
    view.h *= factor;
    apply();
  }

  function fit() {
    view = { x: home.x, y: home.y, w: home.w, h: home.h };
    apply();
  }

  // -- pan: drag anywhere; a drag that moved does not count as a click -------------------
  var drag = null;
  var dragged = false;
  viewport.addEventListener("pointerdown", function (event) {
    if (event.button !== 0) return;
    drag = { x: event.clientX, y: event.clientY, view: { x: view.x, y: view.y }, id: event.pointerId };
    dragged = false;
  });
  viewport.addEventListener("pointermove", function (event) {
    if (!drag || event.pointerId !== drag.id) return;
    var dx = event.clientX - drag.x, dy = event.clientY - drag.y;
    if (!dragged && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!dragged) {
      dragged = true;
      viewport.setPointerCapture(event.pointerId);
      viewport.classList.add("dragging");
    }
    var ctm = svg.getScreenCTM();
    view.x = drag.view.x - dx / ctm.a;
    view.y = drag.view.y - dy / ctm.d;
    apply();
  });
  function endDrag() {
    drag = null;
    viewport.classList.remove("dragging");
  }
  viewport.addEventListener("pointerup", endDrag);
  viewport.addEventListener("pointercancel", endDrag);
  viewport.addEventListener("wheel", function (event) {
    event.preventDefault();
    zoom(event.deltaY > 0 ? 1.15 : 1 / 1.15, toPicture(event.clientX, event.clientY));
  }, { passive: false });

  document.getElementById("zoom-in").addEventListener("click", function () { zoom(1 / 1.25); });
  document.getElementById("zoom-out").addEventListener("click", function () { zoom(1.25); });
  document.getElementById("fit").addEventListener("click", fit);
  document.addEventListener("keydown", function (event) {
    if (event.target === search) return; // typing a filter is not a shortcut
    if (event.key === "/") {
      event.preventDefault();
      search.focus();
      search.select();
    } else if (event.key === "+" || event.key === "=") zoom(1 / 1.25);
    else if (event.key === "-") zoom(1.25);
    else if (event.key === "0") fit();
    else if (event.key === "Escape") select(null);
  });

  // -- selection and the side panel -----------------------------------------------------
  function element(tag, text, className) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (className) node.className = className;
    return node;
  }

  function references(title, list) {
    panel.appendChild(element("h3", title));
    if (!list.length) {
      panel.appendChild(element("p", "none", "muted"));
      return;
    }
    var items = element("ul");
    list.forEach(function (ref) {
      var item = element("li");
      if (ref[0]) {
        var link = element("button", ref[1], "link");
        link.type = "button";
        link.addEventListener("click", function () { select(ref[0], true); });
        item.appendChild(link);
      } else {
        item.appendChild(element("span", ref[1] + " (not drawn)", "muted"));
      }
      items.appendChild(item);
    });
    panel.appendChild(items);
  }

  function show(id) {
    var data = packages[id];
    panel.replaceChildren();
    panel.appendChild(element("h2", data.fqn));
    var tags = element("p");
    tags.appendChild(element("span", data.kind, "tag"));
    if (data.direct) tags.appendChild(element("span", "required by metapkg.yaml", "tag"));
    if (data.metaskill) tags.appendChild(element("span", "metaskill program", "tag warn"));
    if (data.origin && data.origin.indexOf("file:") === 0) tags.appendChild(element("span", "file: origin", "tag warn"));
    if (!data.in_lock) tags.appendChild(element("span", "not in the lock", "tag warn"));
    panel.appendChild(tags);
    var facts = element("dl");
    [["version", data.version], ["origin", data.origin], ["commit", data.commit],
     ["integrity", data.integrity], ["metaskill", data.metaskill]].forEach(function (fact) {
      if (fact[1] === null || fact[1] === undefined) return;
      facts.appendChild(element("dt", fact[0]));
      facts.appendChild(element("dd", fact[1]));
    });
    panel.appendChild(facts);
    references("Depends on", data.dependencies);
    references("Required by", data.required_by);
    if (data.server) {
      panel.appendChild(element("h3", "MCP server (as locked)"));
      panel.appendChild(element("pre", JSON.stringify(data.server, null, 2)));
    }
    if (data.kind !== "mcp") {
      if (data.changelog) {
        panel.appendChild(element("h3", "CHANGELOG " + data.changelog.version + " (" + data.changelog.date + ")"));
        panel.appendChild(element("pre", data.changelog.body || "(no notes)"));
      } else {
        panel.appendChild(element("p", "CHANGELOG not in the download cache.", "muted"));
      }
    }
  }

  function centreOn(node) {
    var bounds = node.getBBox();
    var graph = svg.querySelector("g.graph").transform.baseVal.consolidate();
    var offsetX = graph ? graph.matrix.e : 0, offsetY = graph ? graph.matrix.f : 0;
    view.x = bounds.x + offsetX + bounds.width / 2 - view.w / 2;
    view.y = bounds.y + offsetY + bounds.height / 2 - view.h / 2;
    apply();
  }

  function select(id, centre) {
    svg.querySelectorAll(".selected, .near").forEach(function (node) {
      node.classList.remove("selected", "near");
    });
    svg.classList.toggle("has-selection", Boolean(id));
    if (!id) return;
    var node = document.getElementById(id);
    node.classList.add("selected");
    svg.querySelectorAll("path.edge").forEach(function (edge) {
      var from = edge.getAttribute("data-from"), to = edge.getAttribute("data-to");
      if (from === id || to === id) {
        edge.classList.add("near");
        document.getElementById(from === id ? to : from).classList.add("near");
      }
    });
    show(id);
    if (centre) centreOn(node);
  }

  // -- the filter: packages whose name or repository holds the text stand out ------------
  var search = document.getElementById("search");
  var matchCount = document.getElementById("matches");
  var nodes = Array.prototype.slice.call(svg.querySelectorAll("g.node"));
  var groups = Array.prototype.slice.call(svg.querySelectorAll("g.group"));
  var matches = [];
  var next = 0;

  function filter() {
    var query = search.value.trim().toLowerCase();
    matches = [];
    next = 0;
    nodes.forEach(function (node) {
      var data = packages[node.id];
      var hit = query !== "" && (data.fqn.toLowerCase().indexOf(query) !== -1 ||
        String(data.repository).toLowerCase().indexOf(query) !== -1);
      node.classList.toggle("match", hit);
      if (hit) matches.push(node.id);
    });
    groups.forEach(function (group) {
      group.classList.toggle("match", group.querySelector("g.node.match") !== null);
    });
    svg.classList.toggle("has-filter", query !== "");
    matchCount.textContent = query === "" ? "" : matches.length + " of " + nodes.length;
  }

  function readable() { // zoom in until a label is drawn at its full size, not further
    var scale = svg.getScreenCTM().a;
    if (scale < 1) zoom(scale, { x: view.x + view.w / 2, y: view.y + view.h / 2 });
  }

  search.addEventListener("input", filter);
  search.addEventListener("keydown", function (event) {
    if (event.key === "Enter" && matches.length) {
      event.preventDefault();
      readable();
      select(matches[next % matches.length], true);
      next += 1;
    } else if (event.key === "Escape") {
      search.value = "";
      filter();
      search.blur();
    }
  });

  nodes.forEach(function (node) {
    node.addEventListener("click", function () {
      if (!dragged) select(node.id);
    });
    node.addEventListener("keydown", function (event) {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        select(node.id);
      }
    });
  });

  document.documentElement.setAttribute("data-ready", String(svg.querySelectorAll("g.node").length));
})();
