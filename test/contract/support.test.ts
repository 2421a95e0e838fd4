/**
 * Contract tests, tag "Support" (spec 4.7), against the Prism mock of openapi/store-admin.yaml.
 *
 * Operations covered (1 of 20):
 *   20. createTicketAttachment  POST /tickets/attachments/   (multipart/form-data, optional `files`)
 *
 * Each form is sent to Prism (which checks the media type and the form against the contract)
 * and to the test server, to see the parts that really go out.
 */
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { StoreAdminClient } from "../../src/index.js";
import { createTestClient, expectOk } from "../helpers/client.js";
import { formDataOf, useFaultServer } from "../helpers/fault-server.js";

const photo = () => new File(["\xff\xd8\xff\xe0 jpeg bytes"], "photo.jpg", { type: "image/jpeg" });
const receipt = () => new File(["%PDF-1.7 receipt"], "receipt.pdf", { type: "application/pdf" });

let store: StoreAdminClient;
beforeEach(() => {
  store = createTestClient();
});

describe("createTicketAttachment — POST /tickets/attachments/ (Prism)", () => {
  it("createTicketAttachment: one File", async () => {
    const ticket = expectOk(await store.POST("/tickets/attachments/", { body: { files: photo() } }));
    expectTypeOf(ticket.subject).toEqualTypeOf<string | null | undefined>();
    expect(ticket.id).toBe(2201);
    expect(ticket.subject).toBe("Damaged parcel");
    expect(ticket.comments?.[0]?.attachments?.[0]?.file_name).toBe("photo.jpg");
  });

  it("createTicketAttachment: several Files", async () => {
    const ticket = expectOk(await store.POST("/tickets/attachments/", { body: { files: [photo(), receipt()] } }));
    expect(ticket.id).toBe(2201);
    expect(ticket.status).toBe("new");
  });

  it("createTicketAttachment: a bare Blob (no file name of its own)", async () => {
    const ticket = expectOk(
      await store.POST("/tickets/attachments/", {
        body: { files: new Blob(["plain text note"], { type: "text/plain" }) },
      }),
    );
    expect(ticket.id).toBe(2201);
  });

  it("createTicketAttachment: no file at all (files is optional)", async () => {
    const ticket = expectOk(await store.POST("/tickets/attachments/", { body: {} }));
    expect(ticket.id).toBe(2201);
    expect(ticket.requester).toBe(42);
  });
});

describe("createTicketAttachment — POST /tickets/attachments/ (on the wire)", () => {
  const server = useFaultServer();

  it("createTicketAttachment: one File goes as one `files` part with its name and type", async () => {
    await server()
      .client()
      .POST("/tickets/attachments/", { body: { files: photo() } });
    expect(server().requests).toHaveLength(1);
    const [request] = server().requests;
    expect(request?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    const parts = (await formDataOf(request!)).getAll("files");
    expect(parts).toHaveLength(1);
    const part = parts[0] as File;
    expect(part.name).toBe("photo.jpg");
    expect(part.type).toBe("image/jpeg");
    expect(await part.text()).toBe(await photo().text());
  });

  it("createTicketAttachment: several Files go as repeated `files` parts, in order", async () => {
    await server()
      .client()
      .POST("/tickets/attachments/", { body: { files: [photo(), receipt()] } });
    const parts = (await formDataOf(server().requests[0]!)).getAll("files") as File[];
    expect(parts.map((p) => [p.name, p.type])).toEqual([
      ["photo.jpg", "image/jpeg"],
      ["receipt.pdf", "application/pdf"],
    ]);
  });

  it("createTicketAttachment: a bare Blob is sent as a file part named after the field", async () => {
    await server()
      .client()
      .POST("/tickets/attachments/", { body: { files: new Blob(["plain text note"], { type: "text/plain" }) } });
    const parts = (await formDataOf(server().requests[0]!)).getAll("files") as File[];
    expect(parts).toHaveLength(1);
    expect(parts[0]?.name).toBe("files");
    expect(parts[0]?.type).toBe("text/plain");
    expect(await parts[0]?.text()).toBe("plain text note");
  });

  it("createTicketAttachment: no file is still multipart/form-data (never JSON), with no parts", async () => {
    await server().client().POST("/tickets/attachments/", { body: {} });
    const [request] = server().requests;
    expect(request?.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect([...(await formDataOf(request!)).keys()]).toEqual([]);
  });
});
