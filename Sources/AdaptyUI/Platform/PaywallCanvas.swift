#if (os(iOS) || TOLLGATE_APPLE_GLUE_CHECK) && canImport(SwiftUI) && canImport(UIKit)
  import Adapty
  import SwiftUI
  import UIKit

  /// Draws a resolved paywall: one view per block, in order. Everything it does goes through
  /// `PaywallSession`; this file only maps the tree to SwiftUI. `AdaptyPaywallView`, the
  /// controllers and the modifiers all draw with it.
  @available(iOS 15.0, *)
  struct PaywallCanvas: View {
    let session: PaywallSession
    @Environment(\.colorScheme) private var colorScheme
    /// Bumped by the session after each change, so the body is drawn again.
    @State private var revision = 0

    init(session: PaywallSession) {
      self.session = session
    }

    var body: some View {
      let _ = revision
      let tree = session.resolved(appearance: colorScheme == .dark ? "dark" : "light")
      ZStack {
        background(tree)
        VStack(spacing: 0) {
          closeRow(tree)
          ScrollView {
            VStack(spacing: CGFloat(tree?.spacing ?? 12)) {
              ForEach(tree?.blocks.indices ?? 0..<0, id: \.self) { index in
                if let tree { block(tree.blocks[index], in: tree) }
              }
            }
            .padding(CGFloat(tree?.spacing ?? 12))
          }
        }
      }
      .onAppear {
        session.onChange = { revision += 1 }
        session.appeared()
      }
      .onDisappear(perform: session.disappeared)
    }

    /// The close button's row (44 points and a margin of 8, kept while the button waits for its delay, so nothing
    /// moves when it appears); none without a close button.
    private func closeRow(_ tree: ResolvedPaywall?) -> AnyView {
      let position = session.configuration.document.screen.closeButton.position
      guard position != "none" else { return AnyView(EmptyView()) }
      let button = Button(action: session.close) {
        Image(systemName: "xmark.circle.fill").font(.system(size: 28, weight: .regular))
          .foregroundColor(color(tree, "secondary_text"))
      }
      .disabled(!session.isCloseButtonVisible)
      let visible = AnyView(session.isCloseButtonVisible ? AnyView(button) : AnyView(EmptyView()))
      return AnyView(
        HStack {
          if position == "top_left" {
            visible
            Spacer()
          } else {
            Spacer()
            visible
          }
        }
        .frame(height: 44)
        .padding(8))
    }

    private func background(_ tree: ResolvedPaywall?) -> AnyView {
      if let data = session.image(tree?.background.image), let image = UIImage(data: data) {
        return AnyView(Image(uiImage: image).resizable().scaledToFill().ignoresSafeArea())
      }
      return AnyView(color(tree, tree?.background.color ?? "background").ignoresSafeArea())
    }

    private func block(_ block: ResolvedPaywallBlock, in tree: ResolvedPaywall) -> AnyView {
      switch block.type {
      case "image":
        guard let data = session.image(block.image), let image = UIImage(data: data) else {
          return AnyView(EmptyView())
        }
        return AnyView(
          Image(uiImage: image).resizable().scaledToFill().frame(height: CGFloat(block.height ?? 180)).clipped()
            .cornerRadius(CGFloat(tree.cornerRadius)))
      case "features":
        return AnyView(
          VStack(alignment: .leading, spacing: 8) {
            ForEach((block.features ?? []).indices, id: \.self) { index in
              HStack(spacing: 12) {
                Image(systemName: block.features![index].icon).foregroundColor(color(tree, "accent"))
                text(block.features![index].text, style: "body", role: "text", in: tree)
                Spacer()
              }
            }
          })
      case "products":
        return AnyView(
          VStack(spacing: 8) {
            ForEach((block.products ?? []).indices, id: \.self) { index in
              product(block.products![index], in: tree)
            }
          })
      case "purchase_button":
        return AnyView(
          Button {
            Task { await session.purchase() }
          } label: {
            text(block.text ?? "", style: "body", role: "on_accent", in: tree).frame(maxWidth: .infinity).padding(16)
              .background(color(tree, "accent")).cornerRadius(CGFloat(tree.cornerRadius))
          }
          .disabled(session.isPurchasing || session.isRestoring))
      case "restore_button":
        return AnyView(
          Button {
            Task { await session.restore() }
          } label: {
            text(block.text ?? "", style: "caption", role: "secondary_text", in: tree)
          }
          .disabled(session.isPurchasing || session.isRestoring))
      case "custom_button":
        return AnyView(
          Button {
            session.custom(block.action ?? "")
          } label: {
            text(block.text ?? "", style: "body", role: "accent", in: tree).frame(maxWidth: .infinity).padding(12)
          })
      case "legal":
        return AnyView(
          HStack(spacing: 16) {
            ForEach((block.links ?? []).indices, id: \.self) { index in
              Button {
                session.open(block.links![index].url, presentation: block.links![index].presentation)
              } label: {
                text(block.links![index].title, style: "caption", role: "secondary_text", in: tree)
              }
            }
          })
      case "footer":
        return AnyView(text(block.text ?? "", style: "caption", role: "secondary_text", in: tree))
      default:
        return AnyView(
          text(
            block.text ?? "", style: block.style ?? "body", role: block.type == "subtitle" ? "secondary_text" : "text",
            in: tree))
      }
    }

    private func product(_ product: ResolvedPaywallBlock.Product, in tree: ResolvedPaywall) -> some View {
      Button {
        session.select(product.id)
      } label: {
        VStack(alignment: .leading, spacing: 4) {
          HStack {
            text(product.title, style: "body", role: "text", in: tree)
            Spacer()
            if let badge = product.badge {
              text(badge, style: "caption", role: "on_accent", in: tree).padding(4).background(color(tree, "accent"))
                .cornerRadius(4)
            }
          }
          text(product.detail, style: "caption", role: "secondary_text", in: tree)
        }
        .padding(12)
        .background(color(tree, product.selected ? "card" : "background"))
        .cornerRadius(CGFloat(tree.cornerRadius))
      }
    }

    private func text(_ text: String, style: String, role: String, in tree: ResolvedPaywall) -> some View {
      let textStyle = tree.textStyles[style]
      return Text(text).font(.system(size: CGFloat(textStyle?.size ?? 17), weight: weight(textStyle?.weight)))
        .foregroundColor(color(tree, role))
    }

    private func weight(_ name: String?) -> Font.Weight {
      switch name {
      case "medium": .medium
      case "semibold": .semibold
      case "bold": .bold
      default: .regular
      }
    }

    private func color(_ tree: ResolvedPaywall?, _ role: String) -> Color {
      guard let rgb = tree?.rgb(role) else { return Color(red: 0.5, green: 0.5, blue: 0.5, opacity: 1) }
      return Color(red: rgb.red, green: rgb.green, blue: rgb.blue, opacity: 1)
    }
  }
#endif
