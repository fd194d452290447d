/* A long answer is a job on the board (web/jobs.py): progress and Cancel in `box`, asked after 40 ms, then at
   most every 0.25 s; Cancel or `box` leaving the page stops it. Not in more.js: season.js imports it. */
import { h } from "./dom.js";
import { call, joined } from "./state.js";

export function longAnswer(box, kind, query) {
  // a visitor asks the GET route (jobs are for joined phones)
  if (!joined()) return call("GET", "/api/" + kind + "?" + query);
  var args = {}, mark = h("span", { cls: "muted job-wait" });
  new URLSearchParams(query).forEach(function (v, k) { args[k] = k in args ? [].concat(args[k], v) : v; });
  function ask() {
    return call("POST", "/api/jobs", { kind: kind, args: args }).then(function (job) {
      if (mark.parentNode) mark.parentNode.removeChild(mark);
      return followJob(box, job);
    }, function (e) {
      // too many wait: wait our turn while the question is on the page; any other answer ends the wait,
      // and its line goes with it
      if (e.status !== 503 || (mark.parentNode && !mark.isConnected)) {
        if (mark.parentNode) mark.parentNode.removeChild(mark);
        throw e;
      }
      if (!mark.parentNode) { mark.textContent = "The board is busy with other answers: waiting\u2026"; box.appendChild(mark); }
      return new Promise(function (res) { setTimeout(res, 1000); }).then(function () {
        if (!mark.isConnected) { var c = new Error("left the page"); c.cancelled = true; throw c; }
        return ask();
      });
    });
  }
  return ask();
}
// the jobs followed: dropped when the page goes (closed, reloaded, asleep)
var live = {};
window.addEventListener("pagehide", function () {
  Object.keys(live).forEach(function (url) {
    call("DELETE", url, {}, 0, null, true).catch(function () {});
  });
});
export function followJob(box, job) {
  var bar = h("progress", { max: "1", value: "0" }), said = h("span", { cls: "muted" }), stop = false;
  var cancel = h("button", { type: "button", cls: "job-cancel", text: "Cancel" });
  var el = h("div", { cls: "row job", role: "status", "data-job": job.id }, bar, said, cancel), wait = 40;
  box.appendChild(el);
  return new Promise(function (resolve, reject) {
    if (job.kind !== "season") live[job.url] = true;
    function end(err) {
      stop = true;
      delete live[job.url];
      if (el.parentNode) el.parentNode.removeChild(el);
      if (err) reject(err);
    }
    function drop(why) {
      call("DELETE", job.url, {}).catch(function () {});
      var e = new Error(why); e.cancelled = true; end(e);
    }
    cancel.addEventListener("click", function () { drop("cancelled"); });
    function poll(j) {
      if (stop) return;
      if (!el.isConnected) {       // the season's build serves every phone: leaving it only stops asking
        if (job.kind === "season") { var e = new Error("left the page"); e.cancelled = true; end(e); } else drop("left the page");
        return;
      }
      bar.max = j.progress.of || 1; bar.value = j.progress.done;
      said.textContent = " " + j.progress.what + " \u00b7 " + j.elapsed.toFixed(1) + " s";
      if (j.state === "done") { end(); resolve(j.result); return; }
      if (j.state !== "running") {
        var e = new Error(j.error || "stopped (" + j.state + ")"); e.status = j.status; e.cancelled = j.state === "cancelled"; end(e); return;
      }
      setTimeout(function () { if (!stop) call("GET", j.url).then(poll, end); }, wait);
      wait = Math.min(250, wait * 2);      // a quick answer is seen soon; a long one is asked every 0.25 s
    }
    poll(job);
  });
}
