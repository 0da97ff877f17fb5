// The web UI's file browser, in headless Chromium against a real `harness serve`: the session's
// workspace listed folder by folder (dotfiles too, folders first, each file's size), a chosen file's
// text shown as text (HTML and all), a file that is not text or too large named rather than shown;
// on a server with a token, with the token the page signed in with.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ChromiumPage } from "@harness/test-utils";
import { USER, webUiTesting } from "./web-ui-support.ts";

const entries = `[...document.querySelectorAll("#files-list button.file-entry")].map((b) => b.textContent)`;
const shownText = `document.getElementById("file-text").textContent`;

describe("the web UI's file browser", () => {
  const { harness, openUi, until, click, newSession } = webUiTesting();

  async function workspaceOf(page: ChromiumPage, dataDir: string): Promise<string> {
    const sessionId = await newSession(page);
    const workspace = join(dataDir, "workspaces", USER, sessionId);
    await mkdir(join(workspace, "src", "lib"), { recursive: true });
    await writeFile(join(workspace, "notes.md"), "# Notes\n<b>not bold</b> & <script>alert(1)</script>\n");
    await writeFile(join(workspace, ".env.example"), "KEY=value\n");
    await writeFile(join(workspace, "src", "app.ts"), "export const answer = 42;\n");
    await writeFile(join(workspace, "src", "lib", "deep.ts"), "deep\n");
    await writeFile(join(workspace, "logo.bin"), Buffer.from([0, 1, 2, 3, 255, 0, 7]));
    await writeFile(join(workspace, "big.log"), "x".repeat(1024 * 1024 + 1));
    return workspace;
  }

  test("lists the workspace folder by folder and shows a chosen file's text as text", async () => {
    const { server, dataDir } = await harness({ replies: [] });
    const page = await openUi(`${server.url}/`);
    await workspaceOf(page, dataDir);

    await click(page, "#files-toggle");
    await until(page, `!document.getElementById("files").hidden && ${entries}.length > 0`, "the workspace listed");
    assert.equal(await page.evaluate(`document.getElementById("files-toggle").getAttribute("aria-expanded")`), "true");
    assert.deepEqual(await page.evaluate(entries), ["src/", ".env.example 10 B", "big.log 1.0 MB", "logo.bin 7 B", "notes.md 52 B"]);
    assert.equal(await page.evaluate(`document.getElementById("files-path").textContent`), "/");
    assert.equal(await page.evaluate(`document.querySelector("#files .files-up").disabled`), true);

    // A file's text, as text: its HTML makes no element.
    await click(page, `#files-list button.file-entry[data-path="notes.md"]`);
    await until(page, `${shownText}.includes("Notes")`, "the file shown");
    assert.equal(await page.evaluate(shownText), "# Notes\n<b>not bold</b> & <script>alert(1)</script>\n");
    assert.equal(await page.evaluate(`document.querySelector("#file-view b, #file-view script")`), null);
    assert.equal(await page.evaluate(`document.getElementById("file-name").textContent`), "notes.md");

    // Not text, or too large: named, not shown.
    await click(page, `#files-list button.file-entry[data-path="logo.bin"]`);
    await until(page, `/not text/.test(document.getElementById("file-note").textContent)`, "the binary file named");
    assert.equal(await page.evaluate(shownText), "");
    await click(page, `#files-list button.file-entry[data-path="big.log"]`);
    await until(page, `/too large to show here/.test(document.getElementById("file-note").textContent)`, "the large file named");
    assert.equal(await page.evaluate(shownText), "");

    // Into a folder, and back up.
    await click(page, `#files-list button.file-entry[data-path="src"]`);
    await until(page, `document.getElementById("files-path").textContent === "src/"`, "src listed");
    assert.deepEqual(await page.evaluate(entries), ["lib/", "app.ts 26 B"]);
    await click(page, `#files-list button.file-entry[data-path="src/lib"]`);
    await until(page, `document.getElementById("files-path").textContent === "src/lib/"`, "src/lib listed");
    assert.deepEqual(await page.evaluate(entries), ["deep.ts 5 B"]);
    await click(page, "#files .files-up");
    await until(page, `document.getElementById("files-path").textContent === "src/"`, "back in src");
    await click(page, `#files-list button.file-entry[data-path="src/app.ts"]`);
    await until(page, `${shownText} === "export const answer = 42;\\n"`, "app.ts shown");

    // A file the agent writes meanwhile shows once the folder is listed again.
    await writeFile(join(dataDir, "workspaces", USER, await page.evaluate<string>(`document.querySelector('button.session[aria-current="true"]').dataset.sessionId`), "src", "new.ts"), "new\n");
    await click(page, "#files .files-refresh");
    await until(page, `${entries}.includes("new.ts 4 B")`, "the new file listed");

    // Files closes it.
    await click(page, "#files-toggle");
    assert.equal(await page.evaluate(`document.getElementById("files").hidden`), true);
    assert.deepEqual(page.console(), []);
    assert.deepEqual(await page.evaluate(`window.violations`), []);
  });

  test("works with the token the page signed in with, and says why when a file cannot be read", async () => {
    const { server, dataDir } = await harness({ replies: [] }, { HARNESS_TOKEN: "right-token" });
    const page = await openUi(`${server.url}/`);
    await until(page, `!document.getElementById("sign-in").hidden`, "the page to ask for the token");
    await page.evaluate(`(() => {
      document.getElementById("sign-in-token").value = "right-token";
      document.getElementById("sign-in-user").value = ${JSON.stringify(USER)};
      document.getElementById("sign-in-submit").click();
    })()`);
    const workspace = await workspaceOf(page, dataDir);
    await click(page, "#files-toggle");
    await until(page, `${entries}.includes("notes.md 52 B")`, "the workspace listed");
    await click(page, `#files-list button.file-entry[data-path="src"]`);
    await until(page, `document.getElementById("files-path").textContent === "src/"`, "src listed");
    // Changed meanwhile: as it is now; gone meanwhile: the server's reason.
    await writeFile(join(workspace, "src", "app.ts"), "changed\n");
    await click(page, `#files-list button.file-entry[data-path="src/app.ts"]`);
    await until(page, `${shownText} === "changed\\n"`, "the file as it is now");
    assert.equal(await page.evaluate(`document.getElementById("file-note").textContent`), "8 B", "its size as read, not as listed before");
    // Grown past the cap since it was listed small: named as too large, not shown, read no further.
    await writeFile(join(workspace, "src", "app.ts"), "y".repeat(3 * 1024 * 1024));
    await click(page, `#files-list button.file-entry[data-path="src/app.ts"]`);
    await until(page, `/too large/.test(document.getElementById("file-note").textContent)`, "the grown file named");
    assert.equal(await page.evaluate(`document.getElementById("file-note").textContent`), "too large to show here (over 1.0 MB)");
    assert.equal(await page.evaluate(shownText), "");
    await rm(join(workspace, "src"), { recursive: true });
    await click(page, `#files-list button.file-entry[data-path="src/lib"]`);
    await until(page, `document.querySelector("#files .files-problem").textContent !== ""`, "the refusal shown");
    assert.equal(await page.evaluate(`document.querySelector("#files .files-problem").textContent`), `could not list src/lib/: the server answered 404: no file "src/lib" in the session's workspace`);
    assert.deepEqual(page.console(), []);
  });

  test("a file's text arrives only where it was asked for: not under a file chosen since, nor dropped by a Refresh", async () => {
    const { server, dataDir } = await harness({ replies: [] });
    const page = await openUi(`${server.url}/`);
    await workspaceOf(page, dataDir);
    // Reads of files wait until let go, as over a slow network.
    await page.evaluate(`(() => {
      const real = window.fetch;
      window.held = [];
      window.readsDone = 0;
      window.fetch = async (...args) => {
        if (!String(args[0]).includes("/download")) return real(...args);
        await new Promise((resolve) => window.held.push(resolve));
        const response = await real(...args);
        const body = await response.arrayBuffer();
        window.readsDone++;
        return new Response(body, { status: response.status, headers: response.headers });
      };
    })()`);
    const note = `document.getElementById("file-note").textContent`;
    await click(page, "#files-toggle");
    await until(page, `${entries}.includes("notes.md 52 B")`, "the workspace listed");

    await click(page, `#files-list button.file-entry[data-path="notes.md"]`);
    await until(page, `window.held.length === 1`, "notes.md asked for");
    await click(page, `#files-list button.file-entry[data-path="big.log"]`);
    await until(page, `/too large to show here/.test(${note})`, "the large file named");
    await page.evaluate(`window.held.shift()()`);
    await until(page, `window.readsDone === 1`, "notes.md read");
    assert.equal(await page.evaluate(`document.getElementById("file-name").textContent`), "big.log");
    assert.match(await page.evaluate<string>(note), /too large to show here/);
    assert.equal(await page.evaluate(shownText), "");

    await click(page, `#files-list button.file-entry[data-path="notes.md"]`);
    await until(page, `window.held.length === 1`, "notes.md asked for again");
    await click(page, "#files .files-refresh");
    await until(page, `window.readsDone === 1 && ${entries}.includes("notes.md 52 B")`, "the folder listed again");
    await page.evaluate(`window.held.shift()()`);
    await until(page, `${note} === "52 B"`, "notes.md shown");
    assert.equal(await page.evaluate(shownText), "# Notes\n<b>not bold</b> & <script>alert(1)</script>\n");
    assert.deepEqual(page.console(), []);
  });
});
