/**
 * The useChat example end to end, in headless Chromium (Debian's, driven by playwright-core):
 * a user sends a message, approves the refund of order 7 and denies that of order 8, the page
 * answers `get_location` from the browser's geolocation, and the transcript shows every call's
 * outcome and the model's last answer. In the server, the approved refund ran once and the
 * denied one never; the approval's POST, sent again while the run waits for the page and once
 * it has finished, is refused (409) and runs nothing. A screenshot of the finished chat is
 * compared with the committed baseline.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { INSTALL_COMMAND } from "../../bench/peers.js";
import { expectScreenshot } from "../../test/support/screenshots.js";
import { CHROMIUM_ARGS, chromiumPath } from "../../test/support/services.js";
import { BENCH_MODULES } from "./bundle.js";
import { type ChatServer, createChatServer } from "./server.js";

const FILE = "examples/use-chat/use-chat.test.ts";
const BASELINE = fileURLToPath(new URL("./__screenshots__/chat.png", import.meta.url));
const VIEWPORT = { width: 900, height: 700 };
const OSLO = { latitude: 59.91, longitude: 10.75 };

/** What useChat POSTs, as far as this test reads it. */
interface ChatBody {
  id: string;
  messages: { role: string; parts: { type: string; state?: string; approval?: unknown }[] }[];
}

/**
 * Why the page cannot be bundled (React and the AI SDK live in bench/node_modules), or "";
 * under TOLLGATE_REQUIRE_PEERS=1 (CI) a missing package fails the file instead.
 */
function pagePeersMissing(): string {
  const missing = ["ai", "@ai-sdk/react", "react", "react-dom"].filter(
    (name) => !existsSync(join(BENCH_MODULES, name, "package.json")),
  );
  if (missing.length === 0) return "";
  const why = `${missing.join(", ")} not installed in bench/node_modules`;
  if (process.env.TOLLGATE_REQUIRE_PEERS === "1") {
    throw new Error(`TOLLGATE_REQUIRE_PEERS=1 and ${why}: run \`${INSTALL_COMMAND}\``);
  }
  console.warn(`${FILE} (SKIPPED: ${why}; run \`${INSTALL_COMMAND}\` to bundle the page)`);
  return why;
}

const executablePath = chromiumPath(FILE);
const peersMissing = pagePeersMissing();

describe.skipIf(!executablePath || peersMissing)("a useChat page over a tollgate run", () => {
  let server: ChatServer | undefined;
  let context: BrowserContext | undefined;
  let page: Page;
  let url: string;
  const posts: string[] = []; // the bodies the page POSTed to /api/chat, in order
  const pageErrors: string[] = [];
  const userDataDir = mkdtempSync(join(tmpdir(), "tollgate-use-chat-chromium-"));

  beforeAll(async () => {
    server = await createChatServer();
    url = await server.listen();
    context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: executablePath!,
      args: CHROMIUM_ARGS,
      viewport: VIEWPORT,
      deviceScaleFactor: 1,
      geolocation: OSLO,
      permissions: ["geolocation"],
    });
    page = await context.newPage();
    page.on("pageerror", (error) => pageErrors.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error") pageErrors.push(message.text());
    });
    // Each POST of the page is recorded. The third (get_location's output) waits until the
    // approval's POST, sent again while the run waits for the page, has been answered.
    await page.route("**/api/chat", async (route) => {
      posts.push(route.request().postData()!);
      if (posts.length === 3) replayedWhileWaiting = await postAgain(posts[1]!);
      await route.continue();
    });
    await page.goto(url);
    await page.locator("body[data-loaded]").waitFor();
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await server?.close();
    rmSync(userDataDir, { recursive: true, force: true });
  });

  /** Sends a body the page sent before again; what the server answered, and what ran since. */
  const postAgain = async (body: string) => {
    const response = await fetch(new URL("/api/chat", url), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body,
    });
    const { id } = JSON.parse(body) as ChatBody;
    return {
      status: response.status,
      type: response.headers.get("content-type"),
      text: await response.text(),
      refunds: [...server!.agent.refunds],
      run: (await server!.agent.store.get(id))?.status,
    };
  };
  let replayedWhileWaiting: Awaited<ReturnType<typeof postAgain>> | undefined;

  const refund = (order: number) =>
    page.locator('[data-tool="refund"]', { hasText: `{"order":${order}}` });

  it("approve one call, deny another, answer a browser tool: the transcript says what happened", async () => {
    await page.getByLabel("message").fill("Refund orders 7 and 8, and how is the weather?");
    await page.getByRole("button", { name: "Send" }).click();

    await refund(7).getByRole("button", { name: "Approve" }).waitFor();
    expect(await page.getByRole("button", { name: "Send" }).isDisabled()).toBe(true); // answer first
    await refund(7).getByRole("button", { name: "Approve" }).click();
    await refund(8).getByLabel("reason to deny refund").fill("order 8 was refunded last week");
    await refund(8).getByRole("button", { name: "Deny" }).click();

    // The page posts the answers, the run resumes and asks for get_location; the page answers
    // it; the run resumes again and the model says what happened.
    // (Playwright waits for each; the test's own timeout bounds the wait.)
    await page.locator(".message.assistant > p", { hasText: /^Done:/ }).waitFor();
    await page
      .getByTestId("status")
      .filter({ hasText: /^ready$/ })
      .waitFor();

    expect(await transcript(page)).toEqual([
      { role: "user", parts: ["Refund orders 7 and 8, and how is the weather?"] },
      {
        role: "assistant",
        parts: [
          "Let me check the weather and refund both orders.",
          'weather {"city":"Oslo"} done {"city":"Oslo","tempC":18,"sky":"cloudy"}',
          'refund {"order":7} done {"refunded":7}',
          'refund {"order":8} denied denied: order 8 was refunded last week',
          'get_location {} done {"latitude":59.91,"longitude":10.75}',
          "Done: it is 18 °C and cloudy in Oslo; order 7 is refunded; order 8 is not (the call to refund was refused by a human: order 8 was refunded last week); you are at 59.91, 10.75.",
        ],
      },
    ]);
    expect(pageErrors).toEqual([]);
  });

  it("ran the approved refund exactly once and the denied one never", () => {
    expect(server!.agent.refunds).toEqual([7]);
    // Three POSTs: the user's message; the step with both approvals answered; get_location's output.
    const last = posts.map((body) => (JSON.parse(body) as ChatBody).messages.at(-1)!);
    const toolParts = (message: ChatBody["messages"][number]) =>
      message.parts.filter((part) => part.type.startsWith("tool-"));
    expect(last.map((message) => message.role)).toEqual(["user", "assistant", "assistant"]);
    expect(toolParts(last[1]!)).toMatchObject([
      { type: "tool-weather", state: "output-available" },
      { type: "tool-refund", state: "approval-responded", approval: { approved: true } },
      {
        type: "tool-refund",
        state: "approval-responded",
        approval: { approved: false, reason: "order 8 was refunded last week" },
      },
    ]);
    expect(toolParts(last[2]!).map((part) => `${part.type} ${part.state}`)).toEqual([
      "tool-weather output-available",
      "tool-refund output-available",
      "tool-refund output-denied",
      "tool-get_location output-available",
    ]);
  });

  it("refuses the approval's POST sent again, while the run waits and after it: 409, nothing runs", async () => {
    const refused = (run: string) => ({
      status: 409,
      type: expect.stringMatching(/^text\/plain/),
      text: expect.stringContaining("nothing ran"),
      refunds: [7],
      run,
    });
    expect(replayedWhileWaiting).toEqual(refused("needs_results"));
    expect(await postAgain(posts[1]!)).toEqual(refused("completed"));
    expect(await postAgain(posts[2]!)).toEqual(refused("completed")); // get_location's answer too
  });

  it("looks as the committed screenshot does", async (context) => {
    const png = await page.screenshot({ fullPage: true });
    expectScreenshot(png, BASELINE, FILE, (why) => context.skip(why));
  });
});

/** The rendered transcript: each message's role and parts, a tool call as one line of text. */
function transcript(page: Page) {
  return page.getByTestId("transcript").evaluate((list) =>
    Array.from(list.children, (message) => ({
      role: message.querySelector(".role")!.textContent,
      parts: Array.from(message.querySelectorAll(":scope > p, :scope > .tool"), (part) =>
        part.matches(".tool")
          ? Array.from(
              part.querySelectorAll(".call > *, :scope > :not(.call)"),
              (element) => element.textContent,
            ).join(" ")
          : part.textContent,
      ),
    })),
  );
}
