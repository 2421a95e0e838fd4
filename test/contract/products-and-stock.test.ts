/**
 * Contract tests, tag "Products and stock" (spec 4.3), against the Prism mock of
 * openapi/store-admin.yaml.
 *
 * Operations covered (4 of 20):
 *    9. createProduct       POST /products/
 *   10. getProductVariant   GET  /products/variants/{id}/
 *   11. createProductImage  POST /products/{id}/images/
 *   12. getStockRecord      GET  /stockrecords/{id}/
 */
import { beforeEach, describe, expect, expectTypeOf, it } from "vitest";
import type { StoreAdminClient } from "../../src/index.js";
import { createTestClient, expectOk } from "../helpers/client.js";

let store: StoreAdminClient;
beforeEach(() => {
  store = createTestClient();
});

describe("createProduct — POST /products/", () => {
  it("createProduct: a subscribable product with variants and attributes", async () => {
    const product = expectOk(
      await store.POST("/products/", {
        body: {
          title: "Single-origin coffee beans, 1 kg",
          description: "Washed Ethiopian Yirgacheffe, roasted weekly.",
          enable_subscription: true,
          external_tax_code: "PC040100",
          interval: "month",
          interval_counts: [1, 2, 3],
          is_discountable: true,
          is_public: true,
          meta_description: "Fresh coffee beans delivered monthly.",
          meta_title: "Coffee beans subscription",
          metadata: { origin: "ET" },
          ranking: 2147483647,
          recommended_products: [1187],
          template: "catalogue/product.coffee.html",
          variant_attributes: [{ code: "grind", name: "Grind", values: ["Whole beans", "Espresso"] }],
          variants: [
            {
              title: "1 kg, whole beans",
              sku: "COF-ETH-1KG",
              track_stock: true,
              prices: [{ currency: "EUR", price: "24.90", retail: "29.90" }],
              variant_attribute_values: [{ code: "grind", name: "Grind", value: "Whole beans" }],
            },
          ],
        },
      }),
    );
    expectTypeOf(product.title).toEqualTypeOf<string | null | undefined>();
    expect(product.id).toBe(1201);
    expect(product.title).toBe("Single-origin coffee beans, 1 kg");
    expect(product.slug).toBe("single-origin-coffee-beans-1-kg");
    expect(product.structure).toBe("standalone");
    expect(product.interval).toBe("month");
    expect(product.interval_counts).toEqual([1, 2, 3]);
  });

  it("createProduct: the title alone (the one required field); interval may be null on write", async () => {
    const product = expectOk(
      await store.POST("/products/", { body: { title: "Gift wrap", interval: null, ranking: -2147483648 } }),
    );
    expect(product.id).toBe(1201);
  });
});

describe("getProductVariant — GET /products/variants/{id}/", () => {
  it("getProductVariant: returns the variant with prices and stock records", async () => {
    const variant = expectOk(await store.GET("/products/variants/{id}/", { params: { path: { id: 5001 } } }));
    expect(variant.id).toBe(5001);
    expect(variant.product_id).toBe(1201);
    expect(variant.sku).toBe("COF-ETH-1KG");
    expect(variant.inventory_availability).toBe("in_stock");
    expect(variant.prices?.[0]?.price).toBe("24.90");
    expect(variant.stockrecords?.[0]?.num_in_stock).toBe(120);
    expect(variant.variant_attribute_values?.[0]?.value).toBe("Whole beans");
  });
});

describe("createProductImage — POST /products/{id}/images/", () => {
  it("createProductImage: an image fetched from a URL, as the primary image", async () => {
    const image = expectOk(
      await store.POST("/products/{id}/images/", {
        params: { path: { id: 1201 } },
        body: { src: "https://images.example.org/coffee-1kg.jpg", caption: "The 1 kg bag", display_order: 0 },
      }),
    );
    expect(image.id).toBe(77);
    expect(image.display_order).toBe(0);
    expect(image.file_name).toBe("coffee-1kg.jpg");
    expect(image.src).toBe("https://shop.example.org/media/products/coffee-1kg.jpg");
  });

  it("createProductImage: an uploaded file as base64, at the caption and display_order limits", async () => {
    const attachment = Buffer.from("\x89PNG\r\n\x1a\n tiny image").toString("base64");
    const image = expectOk(
      await store.POST("/products/{id}/images/", {
        params: { path: { id: 1201 } },
        body: { attachment, file_name: "back.png", caption: "c".repeat(200), display_order: 2147483647 },
      }),
    );
    expect(image.id).toBe(77);
  });
});

describe("getStockRecord — GET /stockrecords/{id}/", () => {
  it("getStockRecord: returns the stock record with its location and product", async () => {
    const record = expectOk(await store.GET("/stockrecords/{id}/", { params: { path: { id: 900 } } }));
    expect(record.id).toBe(900);
    expect(record.num_in_stock).toBe(120);
    expect(record.net_stock_level).toBe(116);
    expect(record.location?.name).toBe("Main warehouse");
    expect(record.location?.address?.line4).toBe("Hamburg");
    expect(record.product?.variant_id).toBe(5001);
  });
});
